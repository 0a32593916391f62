// Default runtime options of the sanitized trees (build-asan/, build-fuzz/),
// linked into each of their executables by pf_sanitizer_defaults
// (cmake/sanitizers.cmake). ASAN_OPTIONS / UBSAN_OPTIONS / LSAN_OPTIONS in
// the environment still win, key by key.

extern "C" {

// AddressSanitizer (LeakSanitizer is part of it): also check the order of
// global constructors across files, and use-after-return of stack frames.
const char* __asan_default_options() {
  return "detect_leaks=1:check_initialization_order=1:strict_init_order=1:"
         "detect_stack_use_after_return=1:print_summary=1";
}

// UndefinedBehaviorSanitizer: a stack with every report. The build makes
// every check fatal already (-fno-sanitize-recover=all).
const char* __ubsan_default_options() { return "print_stacktrace=1:halt_on_error=1"; }

}  // extern "C"
