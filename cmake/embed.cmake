# Compiles data files (the knowledge base, the report schema) into the binary:
# each file becomes a string constant in a generated .cpp, so cudiag needs no
# data directory at run time. `--kb DIR` can still override the knowledge base.
function(cudiag_embed_files out_cpp symbol)
  set(inputs ${ARGN})
  add_custom_command(
    OUTPUT ${out_cpp}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out_cpp} -DSYMBOL=${symbol} "-DINPUTS=${inputs}"
            -DBASE=${CMAKE_SOURCE_DIR} -P ${CMAKE_SOURCE_DIR}/cmake/embed_run.cmake
    DEPENDS ${inputs} ${CMAKE_SOURCE_DIR}/cmake/embed_run.cmake
    COMMENT "Embedding ${symbol}"
    VERBATIM)
endfunction()
