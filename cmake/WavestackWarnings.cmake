# One place for the project's warning policy, applied per target so that third-party code
# (volk, nanobind) is compiled with its own flags. Binding targets pass BINDINGS: nanobind's
# and Python's headers use C casts and shadowing, and they are not ours to fix.
function(wavestack_warnings target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "BINDINGS" "" "")
  set(flags -Wall -Wextra -Wnon-virtual-dtor -Woverloaded-virtual)
  if(NOT ARG_BINDINGS)
    list(APPEND flags -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion -Wold-style-cast)
  endif()
  if(WAVESTACK_WERROR)
    list(APPEND flags -Werror)
  endif()
  target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:${flags}>")
endfunction()
