// Errors in what the user gave us (scenario files, catalogs, flags). One type
// carries where (file, 1-based line and column, or the --set flag) and what
// (key path, message naming the bad value and what is accepted). Only main()
// turns it into an exit status (2).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace pf {

struct Location {
  std::string file;  // path, or "--set key=value" for command-line overrides
  int line = 0;      // 1-based; 0 when unknown (then line and column are not printed)
  int column = 0;    // 1-based; 0 when the message is about the whole line (then not printed)
  std::string ToString() const;
};

class InputError : public std::runtime_error {
 public:
  // what() is "file:line:col: key: message" (key omitted when empty).
  InputError(Location where, std::string key, std::string message);
  const Location& where() const { return where_; }
  const std::string& key() const { return key_; }
  const std::string& message() const { return message_; }

 private:
  Location where_;
  std::string key_;
  std::string message_;
};

// `text` as an error message may show it: on one line (control characters
// and bytes that are not UTF-8 escaped as \xNN) and at most `max` bytes
// long (longer text keeps its start and says how long it was).
std::string Shown(const std::string& text, size_t max = 80);

// Whether `text` is valid UTF-8 without control characters.
bool IsPrintableUtf8(const std::string& text);

// The closest of `candidates` to `word` by edit distance, or "" when none is
// close enough to be a plausible typo. Case-insensitive unless
// `case_sensitive` (units: "Gb" is bits, "GB" bytes).
std::string ClosestMatch(const std::string& word, const std::vector<std::string>& candidates,
                         bool case_sensitive = false);

// " (did you mean 'x'?)" or " (accepted: a, b, c)" for an error message.
std::string SuggestionSuffix(const std::string& word, const std::vector<std::string>& candidates,
                             bool case_sensitive = false);

}  // namespace pf
