# The kernels `cudiag test` launches (src/kernel_test/kernels/), compiled into
# the binary. Included at the end of src/CMakeLists.txt, after cudiag_lib.
#
# - axpy.ptx is checked in with a low PTX ISA (see its header) and always
#   embedded: the driver's JIT path.
# - axpy.fatbin holds SASS for the common architectures, built here with nvcc
#   when one is found: the SASS path. Without nvcc the build still succeeds and
#   `cudiag test` says "SASS path: not built (no nvcc at build time)".
set(CUDIAG_KERNEL_ARCHS "75;80;86;89;90;100;120" CACHE STRING "SM architectures of the embedded test kernel's SASS")
find_program(CUDIAG_NVCC nvcc HINTS ENV CUDA_HOME PATH_SUFFIXES bin PATHS /usr/local/cuda/bin)

set(kernel_src_dir ${CMAKE_SOURCE_DIR}/src/kernel_test/kernels)
set(kernel_out_dir ${CMAKE_BINARY_DIR}/kernels)
file(MAKE_DIRECTORY ${kernel_out_dir})

set(sass_inputs "")
set(sass_archs "")
set(nvcc_version "")
if(CUDIAG_NVCC)
  execute_process(COMMAND ${CUDIAG_NVCC} --version OUTPUT_VARIABLE nvcc_out ERROR_QUIET)
  string(REGEX MATCH "release ([0-9]+\\.[0-9]+)" _ "${nvcc_out}")
  set(nvcc_version "${CMAKE_MATCH_1}")
  set(gencode "")
  foreach(arch IN LISTS CUDIAG_KERNEL_ARCHS)
    list(APPEND gencode -gencode arch=compute_${arch},code=sm_${arch})
  endforeach()
  # Uncompressed: a fatbin compressed by a newer toolkit is one more thing an
  # old driver could refuse, and this test is about running SASS.
  add_custom_command(
    OUTPUT ${kernel_out_dir}/axpy.fatbin
    COMMAND ${CUDIAG_NVCC} -fatbin --compress-mode=none ${gencode} ${kernel_src_dir}/axpy.cu
            -o ${kernel_out_dir}/axpy.fatbin
    DEPENDS ${kernel_src_dir}/axpy.cu
    COMMENT "Building the test kernel's SASS with nvcc ${nvcc_version}"
    VERBATIM)
  set(sass_inputs ${kernel_out_dir}/axpy.fatbin)
  list(JOIN CUDIAG_KERNEL_ARCHS "," sass_archs)
  message(STATUS "cudiag test kernels: SASS for sm ${sass_archs} with ${CUDIAG_NVCC}")
else()
  message(STATUS "cudiag test kernels: no nvcc, embedding only the checked-in PTX")
endif()

# Two tables, so each keeps a short relative name ("axpy.ptx", "axpy.fatbin").
foreach(table IN ITEMS ptx sass)
  if(table STREQUAL "ptx")
    set(inputs ${kernel_src_dir}/axpy.ptx)
    set(base ${kernel_src_dir})
  else()
    set(inputs ${sass_inputs})
    set(base ${kernel_out_dir})
  endif()
  set(out ${CMAKE_CURRENT_BINARY_DIR}/embedded_kernels_${table}.cpp)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DSYMBOL=embedded_kernels_${table} -DNAMESPACE=cudiag::kernel_test "-DINPUTS=${inputs}" -DBASE=${base}
            -P ${CMAKE_SOURCE_DIR}/cmake/embed_run.cmake
    DEPENDS ${inputs} ${CMAKE_SOURCE_DIR}/cmake/embed_run.cmake
    COMMENT "Embedding the ${table} test kernels"
    VERBATIM)
  target_sources(cudiag_lib PRIVATE ${out})
endforeach()

set(CUDIAG_SASS_ARCHS "${sass_archs}")
set(CUDIAG_SASS_NVCC_VERSION "${nvcc_version}")
configure_file(${CMAKE_SOURCE_DIR}/src/kernel_test/kernel_build_info.h.in
               ${CMAKE_CURRENT_BINARY_DIR}/generated/kernel_test/kernel_build_info.h @ONLY)
