# Sanitized and fuzzing builds (scripts/setup.sh builds each in its own tree):
#
#   -DPREFLIGHT_SANITIZE=ON   build-asan/: everything (library, tests, tools)
#                             with AddressSanitizer + UndefinedBehaviorSanitizer;
#                             any UB report is fatal (-fno-sanitize-recover=all),
#                             libstdc++'s cheap bounds checks are on
#                             (_GLIBCXX_ASSERTIONS, ABI-compatible).
#   -DPREFLIGHT_FUZZ=ON       build-fuzz/ (clang only): the same sanitizers,
#                             every library also carries libFuzzer's coverage
#                             (-fsanitize=fuzzer-no-link), and the targets of
#                             tests/fuzz/ link libFuzzer's driver.
#
# Include this file before any target is declared: the flags apply to every
# target of the tree, our libraries included (they must be instrumented for
# the fuzzer to see their coverage). SimGrid, yaml-cpp and Protobuf are
# uninstrumented Debian libraries either way.
#
# Sanitized trees compile at -O1, the level AddressSanitizer's documentation
# recommends (github.com/google/sanitizers/wiki/AddressSanitizer): GCC
# compiles a test file 2.5x faster than at Release's -O3 (32.1 s vs 12.8 s for
# tests/scenario/scenario_errors_test.cc), and what they are for is the
# checks, not speed. They skip the benchmarks (preflight_bench is not in
# their `all`).
#
# Every executable of a sanitized tree also gets sanitizer_defaults.cc
# (pf_sanitizer_defaults, called at the end of the root CMakeLists.txt): the
# runtime options (stack traces, halt on error), so that running a binary of
# build-asan/ by hand behaves as ctest does.

option(PREFLIGHT_SANITIZE "Build with AddressSanitizer + UndefinedBehaviorSanitizer (UB is fatal)" OFF)
option(PREFLIGHT_FUZZ "Build the libFuzzer targets of tests/fuzz/ (clang; implies PREFLIGHT_SANITIZE)" OFF)

if(PREFLIGHT_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "PREFLIGHT_FUZZ needs clang (libFuzzer): configure with "
                        "-DCMAKE_CXX_COMPILER=clang++ (scripts/setup.sh does)")
  endif()
  set(PREFLIGHT_SANITIZE ON CACHE BOOL "" FORCE)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

if(PREFLIGHT_SANITIZE)
  set(PF_SANITIZERS address,undefined)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # clang's "undefined" includes it; GCC's does not. A double -> int
    # conversion out of range is undefined behaviour, not a rounding issue.
    string(APPEND PF_SANITIZERS ",float-cast-overflow")
    # GCC 12 under ASan warns about std::regex and std::function internals
    # (false positives the GCC manual warns of with -fsanitize).
    add_compile_options(-Wno-maybe-uninitialized)
  endif()
  # PREFLIGHT_SANITIZED: tests/sanitizer_budget.h and the calibration
  # points skip the heavy simulations.
  # -O1 after the build type's -O3: the last -O wins.
  add_compile_options(-O1 -fsanitize=${PF_SANITIZERS} -fno-sanitize-recover=all
                      -fno-omit-frame-pointer -g1 -D_GLIBCXX_ASSERTIONS -DPREFLIGHT_SANITIZED=1)
  add_link_options(-fsanitize=${PF_SANITIZERS})
endif()

# pf_sanitizer_defaults(DIRS...): adds sanitizer_defaults.cc to every
# executable declared in the given source directories, and the per-test
# runtime options below (no-op unless PREFLIGHT_SANITIZE).
function(pf_sanitizer_defaults)
  if(NOT PREFLIGHT_SANITIZE)
    return()
  endif()
  # Tests that need a sanitizer option of their own, by ctest name (set by a
  # script ctest reads after the GoogleTest cases are discovered):
  #   IsolatedRun.AChildKilledByASignalIsReportedInWords raises SIGSEGV in a
  #   child on purpose and checks that the parent names the signal; ASan's
  #   SEGV handler would turn the signal into exit status 1.
  set(script ${PROJECT_BINARY_DIR}/sanitizer_test_options.cmake)
  file(WRITE ${script}
    "set_tests_properties(IsolatedRun.AChildKilledByASignalIsReportedInWords PROPERTIES\n"
    "                     ENVIRONMENT ASAN_OPTIONS=handle_segv=0)\n")
  set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY TEST_INCLUDE_FILES ${script})
  foreach(dir ${ARGN})
    get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
    foreach(t ${targets})
      get_target_property(type ${t} TYPE)
      if(type STREQUAL "EXECUTABLE")
        target_sources(${t} PRIVATE ${PROJECT_SOURCE_DIR}/cmake/sanitizer_defaults.cc)
      endif()
    endforeach()
  endforeach()
endfunction()
