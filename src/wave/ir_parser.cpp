// Parser of the text form written by ir_printer.cpp. One statement per line; the trailing
// "; line N" carries the kernel source line.
#include <cctype>
#include <charconv>
#include <string>
#include <vector>

#include "wave/errors.hpp"
#include "wave/ir_text.hpp"
#include "wave/verifier.hpp"

namespace wavestack::wave {
namespace {

// Splits a line into words, registers, numbers and the punctuation : = [ ] , { }.
std::vector<std::string> tokenize(std::string_view text) {
  std::vector<std::string> tokens;
  std::string word;
  auto flush = [&] {
    if (!word.empty()) tokens.push_back(std::move(word));
    word.clear();
  };
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      flush();
    } else if (c == ':' || c == '=' || c == '[' || c == ']' || c == ',' || c == '{' || c == '}') {
      flush();
      tokens.emplace_back(1, c);
    } else {
      word += c;
    }
  }
  flush();
  return tokens;
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Module run() {
    bool in_body = false;
    bool body_closed = false;
    size_t start = 0;
    while (start <= text_.size()) {
      size_t end = text_.find('\n', start);
      if (end == std::string_view::npos) end = text_.size();
      std::string_view raw = text_.substr(start, end - start);
      start = end + 1;
      ++line_number_;
      source_line_ = 0;
      if (auto comment = raw.find("; line "); comment != std::string_view::npos) {
        source_line_ = number<uint32_t>(std::string(raw.substr(comment + 7)));
        raw = raw.substr(0, comment);
      }
      tokens_ = tokenize(raw);
      pos_ = 0;
      if (tokens_.empty()) continue;
      if (body_closed) fail("text after the end of the kernel body");
      if (!in_body) {
        in_body = header();
      } else {
        body_closed = body_line();
      }
    }
    if (!body_closed) fail("the kernel body is not closed");
    verify(m_);
    return std::move(m_);
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw IrError("WAVE IR text, line " + std::to_string(line_number_) + ": " + what);
  }
  bool at_end() const { return pos_ >= tokens_.size(); }
  const std::string& next() {
    if (at_end()) fail("unexpected end of line");
    return tokens_[pos_++];
  }
  void expect(std::string_view token) {
    if (next() != token) fail("expected '" + std::string(token) + "'");
  }
  void done() const {
    if (!at_end()) fail("unexpected '" + tokens_[pos_] + "'");
  }
  template <class T>
  T number(const std::string& text) const {
    T value{};
    auto result = std::from_chars(text.data(), text.data() + text.size(), value);
    if (result.ec != std::errc() || result.ptr != text.data() + text.size()) fail("bad number '" + text + "'");
    return value;
  }
  ScalarType type() {
    const auto& name = next();
    auto t = type_from_name(name);
    if (!t) fail("unknown type '" + name + "'");
    return *t;
  }
  Reg reg() {
    const auto& token = next();
    if (token.size() < 2 || token[0] != '%') fail("expected a register, got '" + token + "'");
    const auto r = number<Reg>(token.substr(1));
    if (r >= m_.registers.size()) fail("register " + token + " is not declared");
    return r;
  }
  MemRef mem() {
    const auto& name = next();
    auto ref = m_.find_mem(name);
    if (!ref) fail("no buffer or shared array is named '" + name + "'");
    return *ref;
  }

  // Returns true when the header ends ("{").
  bool header() {
    const auto keyword = next();
    if (keyword == "{") {
      done();
      return true;
    }
    if (keyword == "kernel") {
      m_.name = next();
    } else if (keyword == "registers") {
      while (!at_end()) m_.registers.push_back(type());
    } else if (keyword == "buffer") {
      const auto name = next();
      expect(":");
      m_.buffers.push_back({name, type()});
      m_.params.push_back({Param::Kind::Buffer, static_cast<uint32_t>(m_.buffers.size() - 1)});
    } else if (keyword == "scalar") {
      const auto name = next();
      expect(":");
      const auto t = type();
      expect("=");
      m_.scalars.push_back({name, t, reg()});
      m_.params.push_back({Param::Kind::Scalar, static_cast<uint32_t>(m_.scalars.size() - 1)});
    } else if (keyword == "shared") {
      const auto name = next();
      expect(":");
      const auto t = type();
      expect("[");
      const auto count = number<uint32_t>(next());
      expect("]");
      m_.shared.push_back({name, t, count});
    } else {
      fail("unknown declaration '" + keyword + "'");
    }
    done();
    return false;
  }

  std::vector<Stmt>& current() {
    if (open_.empty()) return m_.body;
    return open_.back().second ? open_.back().node->other : open_.back().node->body;
  }

  Stmt& push(Opcode op) {
    Stmt s;
    s.op = op;
    s.line = source_line_;
    current().push_back(std::move(s));
    return current().back();
  }

  // Returns true when the kernel body closes.
  bool body_line() {
    const auto first = next();
    if (first == "}") {
      if (at_end()) {
        if (open_.empty()) return true;
        open_.pop_back();
        return false;
      }
      const auto word = next();
      expect("{");
      done();
      if (open_.empty() || open_.back().second) fail("'} " + word + " {' without an open block");
      const bool ok = (word == "else" && open_.back().node->op == Opcode::If) ||
                      (word == "continuing" && open_.back().node->op == Opcode::Loop);
      if (!ok) fail("'" + word + "' does not belong here");
      open_.back().second = true;
      return false;
    }
    if (first == "if") {
      const Reg condition = reg();
      expect("{");
      done();
      Stmt& s = push(Opcode::If);
      s.args[0] = condition;
      open_.push_back({&s, false});
      return false;
    }
    if (first == "loop") {
      expect("{");
      done();
      open_.push_back({&push(Opcode::Loop), false});
      return false;
    }
    if (first == "store") {
      const MemRef ref = mem();
      expect("[");
      const Reg index = reg();
      expect("]");
      expect(",");
      const Reg value = reg();
      done();
      Stmt& s = push(Opcode::Store);
      s.mem = ref;
      s.args[0] = index;
      s.args[1] = value;
      return false;
    }
    if (first[0] != '%') {
      auto op = opcode_from_name(first);
      if (!op || (*op != Opcode::Break && *op != Opcode::Continue && *op != Opcode::Return && *op != Opcode::Barrier)) {
        fail("unknown statement '" + first + "'");
      }
      done();
      push(*op);
      return false;
    }
    --pos_;
    definition();
    return false;
  }

  void definition() {
    const Reg dst = reg();
    expect(":");
    if (type() != m_.registers[dst]) fail("the type differs from the register's declared type");
    expect("=");
    const auto name = next();
    auto op = opcode_from_name(name);
    if (!op) fail("unknown instruction '" + name + "'");
    const auto& info = op_info(*op);
    Stmt s;
    s.op = *op;
    s.dst = dst;
    s.line = source_line_;
    switch (info.op_class) {
      case OpClass::Const:
        s.imm = constant(m_.registers[dst], next());
        break;
      case OpClass::Geometry:
        if (*op == Opcode::Length) {
          s.mem = mem();
        } else if (*op != Opcode::LaneId && *op != Opcode::WaveWidth) {
          s.dim = number<uint32_t>(next());
        }
        break;
      case OpClass::Memory:
      case OpClass::Atomic:
        if (*op == Opcode::Store) fail("store has no result");
        s.mem = mem();
        expect("[");
        s.args[0] = reg();
        expect("]");
        for (int i = 1; i < info.operands; ++i) {
          expect(",");
          s.args[i] = reg();
        }
        break;
      case OpClass::Control:
        fail("'" + name + "' has no result");
      default:
        for (int i = 0; i < info.operands; ++i) {
          if (i > 0) expect(",");
          s.args[i] = reg();
        }
        break;
    }
    done();
    current().push_back(std::move(s));
  }

  Value constant(ScalarType t, const std::string& text) const {
    Value v{};
    switch (t) {
      case ScalarType::Bool:
        if (text != "true" && text != "false") fail("bad bool '" + text + "'");
        v.b = text == "true";
        break;
      case ScalarType::I32:
        v.i32 = number<int32_t>(text);
        break;
      case ScalarType::U32:
        v.u32 = number<uint32_t>(text);
        break;
      case ScalarType::I64:
        v.i64 = number<int64_t>(text);
        break;
      case ScalarType::U64:
        v.u64 = number<uint64_t>(text);
        break;
      case ScalarType::F64:
        v.f64 = number<double>(text);
        break;
      default:
        v.f32 = number<float>(text);
        break;
    }
    return v;
  }

  struct Open {
    Stmt* node;
    bool second;
  };

  std::string_view text_;
  Module m_;
  std::vector<Open> open_;
  std::vector<std::string> tokens_;
  size_t pos_ = 0;
  uint32_t line_number_ = 0;
  uint32_t source_line_ = 0;
};

}  // namespace

Module parse_module(std::string_view text) {
  return Parser(text).run();
}

}  // namespace wavestack::wave
