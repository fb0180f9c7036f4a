#include "gen/answer_parser.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <optional>
#include <set>
#include <string_view>

#include "core/text.h"

namespace kjudge {
namespace {

constexpr size_t kMaxPath = 255;

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool blank(std::string_view s) { return s.find_first_not_of(" \t\r\n") == std::string_view::npos; }

// Paths come from the model: shown escaped and cut, so a warning stays one printable line.
std::string shown(const std::string& path) {
  std::string out;
  for (unsigned char c : path.substr(0, 120)) {
    if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return path.size() > 120 ? out + "..." : out;
}

// Reasoning models put their thinking first, and code drafted there is not the answer.
// Returns false (with the error set) when nothing follows the reasoning.
bool strip_reasoning(std::string& text, ParsedAnswer& out) {
  const size_t start = text.find_first_not_of(" \t\n");
  for (const std::string tag : {"think", "thinking"}) {
    const std::string open = "<" + tag + ">", close = "</" + tag + ">";
    if (start != std::string::npos && text.compare(start, open.size(), open) == 0) {
      const size_t end = text.find(close, start);
      if (end == std::string::npos) {
        out.error = "the answer ends inside its " + open + " block (no answer after the reasoning)";
        return false;
      }
      text.erase(0, end + close.size());
      return true;
    }
    // Some chat templates put the opening tag in the prompt, so only the closing one arrives.
    const size_t end = text.find(close);
    if (end != std::string::npos && text.find(open) == std::string::npos) {
      text.erase(0, end + close.size());
      out.warnings.push_back("the answer has " + close + " without " + open +
                             "; the text before it was taken as reasoning");
      return true;
    }
  }
  return true;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    pos = nl + 1;
  }
  return lines;
}

struct Fence {
  char ch;
  size_t len;
  size_t indent;
};

struct Block {
  std::string info;  // what follows the opening fence
  std::vector<std::string> lines;
  bool closed = false;
};

// CommonMark's rules, except that any indentation is accepted: models indent blocks inside
// list items by more than the three spaces CommonMark allows.
std::optional<Fence> opening_fence(const std::string& line, std::string& info) {
  const size_t i = line.find_first_not_of(" \t");
  if (i == std::string::npos || (line[i] != '`' && line[i] != '~')) return std::nullopt;
  const size_t j = std::min(line.find_first_not_of(line[i], i), line.size());
  if (j - i < 3) return std::nullopt;
  info = trim_blanks(line.substr(j));
  // ```x``` on one line is inline code, not a fence.
  if (line[i] == '`' && info.find('`') != std::string::npos) return std::nullopt;
  return Fence{line[i], j - i, i};
}

bool closes(const std::string& line, const Fence& fence) {
  const size_t i = line.find_first_not_of(" \t");
  if (i == std::string::npos || line[i] != fence.ch) return false;
  const size_t j = std::min(line.find_first_not_of(fence.ch, i), line.size());
  return j - i >= fence.len && line.find_first_not_of(" \t", j) == std::string::npos;
}

// A block indented inside a list item has its lines indented as much as its fence.
std::string unindent(const std::string& line, size_t indent) {
  size_t n = 0;
  while (n < indent && n < line.size() && (line[n] == ' ' || line[n] == '\t')) ++n;
  return line.substr(n);
}

std::vector<Block> find_blocks(const std::vector<std::string>& lines) {
  std::vector<Block> blocks;
  for (size_t i = 0; i < lines.size(); ++i) {
    Block block;
    const std::optional<Fence> fence = opening_fence(lines[i], block.info);
    if (!fence) continue;
    for (++i; i < lines.size(); ++i) {
      if (closes(lines[i], *fence)) {
        block.closed = true;
        break;
      }
      block.lines.push_back(unindent(lines[i], fence->indent));
    }
    blocks.push_back(std::move(block));
  }
  return blocks;
}

// A name written without a label must look like one (a single word with an extension), so
// `// Kernel for the sum`, `#include <x.h>` or `#pragma once` are not taken for paths.
bool bare_path(const std::string& s) {
  if (s.empty() || s.size() > kMaxPath) return false;
  for (unsigned char c : s)
    if (!std::isalnum(c) &&
        std::string_view("._/+-").find(static_cast<char>(c)) == std::string_view::npos)
      return false;
  const std::string name = s.substr(s.rfind('/') == std::string::npos ? 0 : s.rfind('/') + 1);
  const size_t dot = name.rfind('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == name.size()) return false;
  const std::string ext = name.substr(dot + 1);
  return ext.size() <= 10 && std::isalpha(static_cast<unsigned char>(ext[0])) &&
         std::all_of(ext.begin(), ext.end(), [](unsigned char c) { return std::isalnum(c); });
}

// `kernel.cu`, "kernel.cu" or **kernel.cu** → kernel.cu
std::string unquote(std::string s) {
  const std::string_view marks = "`'\"*";
  while (!s.empty() && marks.find(s.front()) != std::string_view::npos) s.erase(0, 1);
  while (!s.empty() && marks.find(s.back()) != std::string_view::npos) s.pop_back();
  return s;
}

// A labelled value: a quoted string, else the first word.
std::string first_word(const std::string& s) {
  if (!s.empty() && (s[0] == '"' || s[0] == '\'' || s[0] == '`')) {
    const size_t end = s.find(s[0], 1);
    return s.substr(1, end == std::string::npos ? std::string::npos : end - 1);
  }
  return unquote(s.substr(0, s.find_first_of(" \t")));
}

std::optional<std::string> comment_body(const std::string& line) {
  std::string t = trim_blanks(line);
  if (starts_with(t, "/*")) {
    t.erase(0, 2);
    if (t.size() >= 2 && t.compare(t.size() - 2, 2, "*/") == 0) t.resize(t.size() - 2);
    return trim_blanks(t);
  }
  if (starts_with(t, "//")) return trim_blanks(t.substr(2));
  if (starts_with(t, "#") || starts_with(t, ";")) return trim_blanks(t.substr(1));
  return std::nullopt;
}

// A labelled name (`file: x`) is taken whatever it holds, so an unsafe one is reported rather
// than silently kept as code.
std::optional<std::string> path_in_comment(const std::string& line) {
  const std::optional<std::string> body = comment_body(line);
  if (!body) return std::nullopt;
  const std::string low = lower(*body);
  for (const std::string label : {"filename:", "file name:", "file:", "path:"})
    if (starts_with(low, label)) return first_word(trim_blanks(body->substr(label.size())));
  if (bare_path(unquote(*body))) return unquote(*body);
  return std::nullopt;
}

// Words of an info string; a quoted value (title="my file.cu") stays one word.
std::vector<std::string> info_words(const std::string& info) {
  std::vector<std::string> words;
  std::string word;
  char quote = 0;
  for (char c : info) {
    if (quote) {
      if (c == quote) quote = 0;
      word += c;
    } else if (c == '"' || c == '\'') {
      quote = c;
      word += c;
    } else if (c == ' ' || c == '\t' || c == ',' || c == '{' || c == '}') {
      if (!word.empty()) words.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(word);
  return words;
}

// ```cuda file=x.cu, ```cpp title="x.cpp", ```cuda x.cu, ```x.cu, ```cuda:x.cu
std::optional<std::string> path_in_info(const std::string& info) {
  static const std::set<std::string> keys = {"file", "filename", "path", "title", "name"};
  for (const std::string& w : info_words(info)) {
    const size_t eq = w.find('=');
    if (eq != std::string::npos) {
      if (keys.count(lower(w.substr(0, eq)))) return first_word(w.substr(eq + 1));
      continue;
    }
    const size_t colon = w.find(':');
    const std::string name = unquote(colon == std::string::npos ? w : w.substr(colon + 1));
    if (bare_path(name)) return name;
  }
  return std::nullopt;
}

std::string language_of(const std::string& info) {
  const std::vector<std::string> words = info_words(info);
  if (words.empty() || words[0].find('=') != std::string::npos) return "";
  const std::string first = lower(words[0].substr(0, words[0].find(':')));
  return bare_path(first) ? "" : first;
}

// Blocks that are never the solution when they name no file: commands, output, prose.
bool non_source_language(const std::string& language) {
  static const std::set<std::string> languages = {
      "bash", "sh",        "shell",    "zsh",  "console", "terminal", "text",
      "txt",  "plaintext", "output",   "log",  "json",    "yaml",     "yml",
      "diff", "patch",     "makefile", "make", "cmake",   "markdown", "md"};
  return languages.count(language) > 0;
}

// The reason a path may not be written, or "" when it may; `path` comes back normalised
// (`./x` and `a//b` → `x`, `a/b`).
std::string check_path(std::string& path) {
  if (path.empty()) return "the path is empty";
  if (path.size() > kMaxPath) return "the path is longer than 255 characters";
  for (unsigned char c : path) {
    if (c == 0) return "the path holds a NUL character";
    if (c < 0x20 || c == 0x7f) return "the path holds a control character";
  }
  if (path.find('\\') != std::string::npos) return "the path holds a backslash";
  if (path[0] == '/') return "the path is absolute";
  if (path.back() == '/') return "the path names a directory";
  std::string normal;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t slash = path.find('/', pos);
    if (slash == std::string::npos) slash = path.size();
    const std::string part = path.substr(pos, slash - pos);
    pos = slash + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") return "the path leaves the workspace (..)";
    normal += (normal.empty() ? "" : "/") + part;
  }
  if (normal.empty()) return "the path names no file";
  path = normal;
  return "";
}

bool looks_like_code(const std::string& text) {
  return text.find("#include") != std::string::npos ||
         text.find("__global__") != std::string::npos || text.find("def ") != std::string::npos;
}

struct Candidate {
  std::optional<std::string> path;  // nullopt: the block names no file
  std::string language;
  std::vector<std::string> lines;
  bool dropped = false;
};

// The path line is looked for on the first non-blank line, and removed with what precedes it.
Candidate name_block(const Block& block) {
  Candidate c;
  c.language = language_of(block.info);
  c.lines = block.lines;
  size_t first = 0;
  while (first < c.lines.size() && blank(c.lines[first])) ++first;
  if (first < c.lines.size()) c.path = path_in_comment(c.lines[first]);
  if (c.path)
    c.lines.erase(c.lines.begin(), c.lines.begin() + static_cast<std::ptrdiff_t>(first) + 1);
  else
    c.path = path_in_info(block.info);
  return c;
}

std::string content_of(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

}  // namespace

ParsedAnswer parse_answer(const std::string& answer, const std::string& expected_path) {
  ParsedAnswer out;
  std::string text = answer;
  if (!strip_reasoning(text, out)) return out;
  if (blank(text)) {
    out.error =
        blank(answer) ? "the answer is empty" : "the answer holds nothing after its reasoning";
    return out;
  }
  const std::vector<std::string> lines = split_lines(text);
  std::vector<Block> blocks = find_blocks(lines);
  if (blocks.empty()) {
    if (!looks_like_code(text)) {
      out.error = "the answer holds no code block";
      return out;
    }
    out.warnings.push_back("the answer has no code fences; its whole text was taken as code");
    blocks.push_back(Block{"", lines, true});
  } else if (!blocks.back().closed) {
    out.warnings.push_back("the last code block is not closed (the answer may be truncated)");
  }

  std::vector<Candidate> candidates;
  for (const Block& b : blocks) candidates.push_back(name_block(b));
  std::vector<std::string> drops;
  auto drop = [&](Candidate& c, const std::string& why) {
    c.dropped = true;
    out.warnings.push_back(why);
    drops.push_back(why);
  };

  std::string expected = expected_path;
  const bool expected_ok = check_path(expected).empty();
  bool has_expected = false;
  for (Candidate& c : candidates) {
    if (!c.path) continue;
    const std::string raw = *c.path;
    const std::string why = check_path(*c.path);
    if (!why.empty())
      drop(c, "dropped the code block for '" + shown(raw) + "': " + why);
    else if (*c.path == expected)
      has_expected = true;
  }

  // One unnamed block can only be meant as the expected file; with several, which one is
  // unknowable, so none is guessed.
  std::vector<Candidate*> unnamed;
  for (Candidate& c : candidates)
    if (!c.path && !non_source_language(c.language)) unnamed.push_back(&c);
  Candidate* promoted = nullptr;
  if (unnamed.size() == 1 && !has_expected && expected_ok) {
    promoted = unnamed[0];
    promoted->path = expected;
    out.warnings.push_back(std::string(candidates.size() == 1 ? "the" : "one") +
                           " code block names no file; it was taken as '" + expected + "'");
  }
  for (Candidate& c : candidates) {
    if (c.path || c.dropped) continue;
    std::string why = "dropped a code block that names no file";
    if (!c.language.empty()) why += " (" + c.language + ")";
    drop(c, why);
  }

  for (const Candidate& c : candidates) {
    if (c.dropped) continue;
    SourceFile file{*c.path, content_of(c.lines)};
    if (file.content.empty())
      out.warnings.push_back("the code block for '" + file.path + "' is empty");
    auto same = std::find_if(out.files.begin(), out.files.end(),
                             [&](const SourceFile& f) { return f.path == file.path; });
    if (same == out.files.end()) {
      out.files.push_back(std::move(file));
    } else {
      out.warnings.push_back("a later code block for '" + file.path + "' replaces an earlier one");
      same->content = std::move(file.content);
    }
  }
  if (out.files.empty()) {
    out.error = "no usable file in the answer:";
    for (size_t i = 0; i < drops.size(); ++i) out.error += (i ? "; " : " ") + drops[i];
  }
  return out;
}

}  // namespace kjudge
