# One interface target carries the project's warning and sanitizer flags, so
# every library, tool and test is built the same way.
add_library(cudiag_settings INTERFACE)
target_compile_options(cudiag_settings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
  -Wnon-virtual-dtor -Wold-style-cast -Werror)
if(CUDIAG_SANITIZE)
  target_compile_options(cudiag_settings INTERFACE
    -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_link_options(cudiag_settings INTERFACE -fsanitize=address,undefined)
endif()
