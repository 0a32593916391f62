// One command line parsed the way every Preflight command does it: CLI11's
// own message and exit status 2 for a bad command line (0 after --help).
#pragma once

#include <cctype>
#include <string>

#include <CLI/CLI.hpp>

namespace pf {

inline constexpr int kParsed = -1;

// kParsed, or the status the command exits with. CLI11 checks required
// arguments before unknown ones, so `simulate sweep --bogus` would say
// "scenario is required"; an option the command does not have is named
// first instead.
inline int ParseCommandLine(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
    return kParsed;
  } catch (const CLI::RequiredError& e) {
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      if (a == "--") break;
      if (a.size() < 2 || a[0] != '-' || std::isdigit(static_cast<unsigned char>(a[1])) || a[1] == '.') continue;
      a = a[1] == '-' ? a.substr(0, a.find('=')) : a.substr(0, 2);  // --name=value, -j4
      if (app.get_option_no_throw(a) == nullptr) return app.exit(CLI::ExtrasError({a})) == 0 ? 0 : 2;
    }
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
}

}  // namespace pf
