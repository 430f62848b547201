// Textual IR parser: a hand-written lexer and recursive-descent parser. Every
// error is a ParseError at the line:column of the offending token. Uses of
// values may precede their definitions in the text (the verifier reports
// that), but every used value must be defined somewhere.
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "base/half.h"
#include "base/memory_limit.h"
#include "base/diagnostic.h"
#include "ir/operator.h"
#include "ir/text.h"

namespace edgec {
namespace {

enum class Tok { End, Ident, Value, String, Number, Punct };

struct Token {
  Tok kind = Tok::End;
  std::string text;
  int line = 1, col = 1;
};

class Lexer {
 public:
  Lexer(std::string_view src, const std::string& file) : src_(src), file_(file) {}

  Token next() {
    skip_space();
    Token t;
    t.line = line_;
    t.col = col_;
    if (pos_ >= src_.size()) return t;
    const char c = src_[pos_];
    if (c == '%') {
      advance();
      t.kind = Tok::Value;
      t.text = take_while([](char ch) { return is_name_char(ch); });
      if (t.text.empty()) throw ParseError(file_, t.line, t.col, "expected a value name after '%'");
    } else if (c == '"') {
      t.kind = Tok::String;
      t.text = string_literal(t);
    } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+') {
      t.kind = Tok::Number;
      t.text = take_while([](char ch) {
        return std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-' || ch == '+';
      });
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      t.kind = Tok::Ident;
      t.text = take_while([](char ch) { return is_name_char(ch); });
    } else if (c == '<' && pos_ + 1 < src_.size() && src_[pos_ + 1] == '=') {
      t.kind = Tok::Punct;
      t.text = "<=";
      advance();
      advance();
    } else if (std::strchr("()[]{},:=<>?", c)) {
      t.kind = Tok::Punct;
      t.text = std::string(1, c);
      advance();
    } else {
      throw ParseError(file_, t.line, t.col, std::string("unexpected character '") + c + "'");
    }
    return t;
  }

 private:
  static bool is_name_char(char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.' || ch == '$';
  }
  void advance() {
    if (src_[pos_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++pos_;
  }
  void skip_space() {
    while (pos_ < src_.size()) {
      const char c = src_[pos_];
      if (std::isspace(static_cast<unsigned char>(c))) {
        advance();
      } else if (c == '/' && pos_ + 1 < src_.size() && src_[pos_ + 1] == '/') {
        while (pos_ < src_.size() && src_[pos_] != '\n') advance();
      } else {
        break;
      }
    }
  }
  template <typename F>
  std::string take_while(F f) {
    const size_t start = pos_;
    while (pos_ < src_.size() && f(src_[pos_])) advance();
    return std::string(src_.substr(start, pos_ - start));
  }
  std::string string_literal(const Token& t) {
    advance();  // opening quote
    std::string s;
    while (true) {
      if (pos_ >= src_.size() || src_[pos_] == '\n')
        throw ParseError(file_, t.line, t.col, "unterminated string");
      char c = src_[pos_];
      advance();
      if (c == '"') break;
      if (c == '\\') {
        if (pos_ >= src_.size()) throw ParseError(file_, t.line, t.col, "unterminated string");
        c = src_[pos_];
        advance();
      }
      s += c;
    }
    return s;
  }

  std::string_view src_;
  const std::string& file_;
  size_t pos_ = 0;
  int line_ = 1, col_ = 1;
};

struct PendingUse {
  Node* node;
  size_t index;
  Token token;
};

class Parser {
 public:
  Parser(std::string_view text, const std::string& file, const ParseOptions& options)
      : lex_(text, file), file_(file), options_(options) {
    tok_ = lex_.next();
  }

  std::unique_ptr<Program> parse() {
    auto p = parse_body(false);
    if (tok_.kind != Tok::End) fail(tok_, "expected the end of input, got " + describe(tok_));
    return p;
  }

 private:
  /// One program; a nested one (a delegate's) ends at its closing brace.
  std::unique_ptr<Program> parse_body(bool nested) {
    auto p = std::make_unique<Program>();
    Program* outer = prog_;
    std::vector<PendingUse> outer_pending;
    std::set<std::string> outer_defined;
    std::swap(outer_pending, pending_);
    std::swap(outer_defined, defined_);
    prog_ = p.get();
    expect_ident("program");
    expect_ident("dialect");
    expect_punct("=");
    prog_->dialect = expect(Tok::String, "a dialect name string").text;
    bool seen_graph = false;
    while (tok_.kind != Tok::End && !(nested && is_punct("}"))) {
      Token section = expect(Tok::Ident, "a section name (signature, graph, state, constants, delegate)");
      if (section.text == "signature") {
        parse_signature();
      } else if (section.text == "graph") {
        parse_graph(prog_->graph);
        seen_graph = true;
      } else if (section.text == "memory_plan") {
        parse_memory_plan();
      } else if (section.text == "state") {
        parse_store(prog_->state);
      } else if (section.text == "constants") {
        parse_store(prog_->constants);
      } else if (section.text == "delegate") {
        parse_delegate();
      } else {
        fail(section, "unknown section '" + section.text +
                          "'; expected signature, graph, memory_plan, state, constants or delegate");
      }
    }
    if (!seen_graph) fail(tok_, "expected a graph section before the end of the program");
    prog_ = outer;
    std::swap(outer_pending, pending_);
    std::swap(outer_defined, defined_);
    return p;
  }

  /// `delegate N backend = "id" { program ... }`, N counting from 0.
  void parse_delegate() {
    Token index = expect(Tok::Number, "the delegate's index");
    if (index.text != std::to_string(prog_->delegates.size()))
      fail(index, "expected delegate " + std::to_string(prog_->delegates.size()) + ", got " + index.text);
    expect_ident("backend");
    expect_punct("=");
    Delegate d;
    d.backend = expect(Tok::String, "a backend id string").text;
    expect_punct("{");
    Program* owner = prog_;
    d.program = parse_body(true);
    prog_ = owner;
    expect_punct("}");
    prog_->delegates.push_back(std::move(d));
  }

  [[noreturn]] void fail(const Token& t, const std::string& msg) { throw ParseError(file_, t.line, t.col, msg); }

  std::string describe(const Token& t) {
    switch (t.kind) {
      case Tok::End: return "end of input";
      case Tok::Value: return "'%" + t.text + "'";
      case Tok::String: return "string \"" + t.text + "\"";
      default: return "'" + t.text + "'";
    }
  }
  Token take() {
    Token t = tok_;
    tok_ = lex_.next();
    return t;
  }
  Token expect(Tok kind, const std::string& what) {
    if (tok_.kind != kind) fail(tok_, "expected " + what + ", got " + describe(tok_));
    return take();
  }
  bool is_punct(const char* p) const { return tok_.kind == Tok::Punct && tok_.text == p; }
  bool is_ident(const char* s) const { return tok_.kind == Tok::Ident && tok_.text == s; }
  void expect_punct(const char* p) {
    if (!is_punct(p)) fail(tok_, std::string("expected '") + p + "', got " + describe(tok_));
    take();
  }
  void expect_ident(const char* s) {
    if (!is_ident(s)) fail(tok_, std::string("expected '") + s + "', got " + describe(tok_));
    take();
  }
  bool accept_punct(const char* p) {
    if (!is_punct(p)) return false;
    take();
    return true;
  }

  int64_t parse_int(const Token& t) {
    int64_t v = 0;
    const char* b = t.text.data();
    const char* e = b + t.text.size();
    if (*b == '+') ++b;
    auto r = std::from_chars(b, e, v);
    if (r.ec != std::errc() || r.ptr != e) fail(t, "expected an integer, got '" + t.text + "'");
    return v;
  }
  static bool looks_float(const std::string& s) {
    return s.find_first_of(".eEn") != std::string::npos;  // '.', exponent, inf, nan
  }
  double parse_float(const Token& t) {
    std::string s = t.text;
    if (s == "inf" || s == "+inf") return INFINITY;
    if (s == "-inf") return -INFINITY;
    if (s == "nan" || s == "-nan" || s == "+nan") return NAN;
    double v = 0;
    const char* b = s.data();
    if (*b == '+') ++b;
    auto r = std::from_chars(b, s.data() + s.size(), v);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) fail(t, "expected a number, got '" + s + "'");
    return v;
  }
  // Numbers may also be spelled inf/nan, which the lexer reads as identifiers.
  bool at_number() const {
    return tok_.kind == Tok::Number || (tok_.kind == Tok::Ident && (tok_.text == "inf" || tok_.text == "nan"));
  }

  TensorType parse_type() {
    Token t = expect(Tok::Ident, "a tensor type like f32[2, 3]");
    auto dtype = parse_dtype(t.text);
    if (!dtype) fail(t, "unknown dtype '" + t.text + "'; expected f32, f16, bf16, f64, i64, i32, i16, i8, u64, u32, u16, u8 or bool");
    TensorType type;
    type.dtype = *dtype;
    expect_punct("[");
    if (!accept_punct("]")) {
      do {
        type.dims.push_back(parse_dim());
      } while (accept_punct(","));
      expect_punct("]");
    }
    // Element and byte counts are computed from types everywhere (shape
    // functions, memory planning, allocation); a type whose bytes do not
    // fit in int64 would make them wrap, so no such type gets in.
    if (type.size_overflows())
      fail(t, "tensor type " + type.str() + " is too large: its size in bytes does not fit in int64");
    return type;
  }

  Dim parse_dim() {
    if (tok_.kind == Tok::Number) {
      Token t = take();
      int64_t v = parse_int(t);
      if (v < 0) fail(t, "dimension sizes must be non-negative, got " + t.text);
      return Dim::fixed(v);
    }
    if (accept_punct("?")) {
      expect_punct("<=");
      Token t = expect(Tok::Number, "an upper bound");
      int64_t v = parse_int(t);
      if (v < 0) fail(t, "upper bounds must be non-negative, got " + t.text);
      return Dim::dynamic(v);
    }
    Token sym = expect(Tok::Ident, "a dimension (a size, a symbol or ?<=bound)");
    if (accept_punct("<=")) {
      Token t = expect(Tok::Number, "an upper bound");
      int64_t v = parse_int(t);
      if (v < 0) fail(t, "upper bounds must be non-negative, got " + t.text);
      return Dim::symbolic(sym.text, v);
    }
    return Dim::symbolic(sym.text);
  }

  void parse_signature() {
    expect_punct("{");
    while (!accept_punct("}")) {
      Token dir = expect(Tok::Ident, "'input', 'output' or '}'");
      Token kind = expect(Tok::Ident, "a spec kind");
      Token arg = expect(Tok::Value, "a value name");
      std::string target;
      bool persistent = false, has_persistent = false;
      while (tok_.kind == Tok::Ident && (tok_.text == "target" || tok_.text == "persistent")) {
        Token key = take();
        expect_punct("=");
        if (key.text == "target") {
          target = expect(Tok::String, "a target string").text;
        } else {
          Token b = expect(Tok::Ident, "true or false");
          if (b.text != "true" && b.text != "false") fail(b, "expected true or false, got '" + b.text + "'");
          persistent = b.text == "true";
          has_persistent = true;
        }
      }
      if (dir.text == "input") {
        InputSpec s;
        if (kind.text == "user_input") s.kind = InputKind::UserInput;
        else if (kind.text == "parameter") s.kind = InputKind::Parameter;
        else if (kind.text == "buffer") s.kind = InputKind::Buffer;
        else if (kind.text == "constant") s.kind = InputKind::Constant;
        else fail(kind, "unknown input kind '" + kind.text + "'; expected user_input, parameter, buffer or constant");
        if (has_persistent && s.kind != InputKind::Buffer) fail(kind, "only buffers have 'persistent'");
        if (s.kind == InputKind::Buffer && !has_persistent) fail(arg, "buffer %" + arg.text + " needs persistent = true|false");
        s.arg = arg.text;
        s.target = target;
        s.persistent = persistent;
        prog_->inputs.push_back(s);
      } else if (dir.text == "output") {
        OutputSpec s;
        if (kind.text == "user_output") s.kind = OutputKind::UserOutput;
        else if (kind.text == "buffer_mutation") s.kind = OutputKind::BufferMutation;
        else fail(kind, "unknown output kind '" + kind.text + "'; expected user_output or buffer_mutation");
        if (has_persistent) fail(kind, "outputs have no 'persistent'");
        s.arg = arg.text;
        s.target = target;
        prog_->outputs.push_back(s);
      } else {
        fail(dir, "expected 'input' or 'output', got '" + dir.text + "'");
      }
    }
  }

  Value* use(const Token& t, Node* node, size_t index) {
    Value* v = cur_->find_value(t.text);
    if (!v) pending_.push_back({node, index, t});
    return v;
  }

  /// The nodes of `g` up to its closing '}'. A region's names resolve in
  /// the region only (regions are closed), its forward uses at its end.
  void parse_graph(Graph& g) {
    expect_punct("{");
    Graph* const outer = cur_;
    std::vector<PendingUse> outer_pending = std::move(pending_);
    pending_.clear();
    cur_ = &g;
    bool seen_call = false;
    while (!accept_punct("}")) {
      if (g.output_node()) fail(tok_, "expected '}' after the output node, got " + describe(tok_));
      if (is_ident("output")) {
        take();
        expect_punct("(");
        std::vector<Token> vals;
        if (!accept_punct(")")) {
          do vals.push_back(expect(Tok::Value, "a value name")); while (accept_punct(","));
          expect_punct(")");
        }
        Node* out = g.set_outputs(std::vector<Value*>(vals.size(), nullptr));
        for (size_t i = 0; i < vals.size(); ++i) out->set_input(i, use(vals[i], out, i));
        continue;
      }
      std::vector<Token> results;
      do results.push_back(expect(Tok::Value, "a value name, 'output' or '}'")); while (accept_punct(","));
      for (const Token& r : results)
        if (g.find_value(r.text) || defined_.count(r.text)) fail(r, "value %" + r.text + " is defined twice");
      expect_punct("=");
      Token op = expect(Tok::Ident, "'placeholder' or an operator name");
      if (op.text == "placeholder") {
        if (results.size() != 1) fail(results[1], "a placeholder has exactly one result");
        expect_punct(":");
        TensorType type = parse_type();
        Node* n = g.add_placeholder(results[0].text, type);
        // Keep text order: a placeholder written after calls stays there (the verifier reports it).
        if (seen_call) g.move_to_end(n);
        defined_.insert(results[0].text);
        continue;
      }
      parse_call(op, results);
      seen_call = true;
    }
    resolve_pending();
    cur_ = outer;
    pending_ = std::move(outer_pending);
  }

  void parse_call(const Token& op_tok, const std::vector<Token>& results) {
    static const AttrDecl kDelegateAttr = attr_int("delegate", 0);
    const bool delegate_call = op_tok.text == kCallDelegateOp;
    const bool control_flow = op_tok.text == kCondOp || op_tok.text == kLoopOp;
    const OpInfo* info = delegate_call || control_flow ? nullptr : find_op(op_tok.text);
    if (!info && !delegate_call && !control_flow) {
      auto parts = split_op_name(op_tok.text);
      if (!parts) fail(op_tok, "expected an operator name like aten.add.Tensor, got '" + op_tok.text + "'");
      if (!is_known_dialect(parts->dialect)) fail(op_tok, "unknown dialect '" + parts->dialect + "' in operator '" + op_tok.text + "'");
      fail(op_tok, "unknown operator '" + op_tok.text + "'");
    }
    expect_punct("(");
    std::vector<Token> inputs;
    std::vector<OperandGroup> groups;
    Attrs attrs;
    bool in_attrs = false;
    if (!accept_punct(")")) {
      do {
        if (tok_.kind == Tok::Value) {
          if (in_attrs) fail(tok_, "tensor operands must come before attributes");
          inputs.push_back(take());
          groups.push_back({});
        } else if (is_punct("[")) {
          if (in_attrs) fail(tok_, "tensor operands must come before attributes");
          take();
          OperandGroup gr{true, 0};
          if (!accept_punct("]")) {
            do {
              inputs.push_back(expect(Tok::Value, "a value name in the list"));
              ++gr.count;
            } while (accept_punct(","));
            expect_punct("]");
          }
          groups.push_back(gr);
        } else {
          in_attrs = true;
          Token name = expect(Tok::Ident, "an operand or attribute");
          expect_punct("=");
          const AttrDecl* spec = delegate_call  ? (name.text == "delegate" ? &kDelegateAttr : nullptr)
                                 : control_flow ? nullptr
                                                : info->attr(name.text);
          if (!spec) fail(name, "operator '" + op_tok.text + "' has no attribute '" + name.text + "'");
          if (attrs.has(name.text)) fail(name, "attribute '" + name.text + "' given twice");
          attrs.set(name.text, parse_attr_value(*spec));
        }
      } while (accept_punct(","));
      expect_punct(")");
    }
    expect_punct(":");
    std::vector<TensorType> types;
    do types.push_back(parse_type()); while (accept_punct(","));
    if (types.size() != results.size())
      fail(op_tok, std::to_string(results.size()) + " result name(s) but " + std::to_string(types.size()) + " result type(s)");
    std::string tag;
    std::vector<Refusal> refusals;
    if (accept_punct("{")) {
      do {
        Token key = expect(Tok::Ident, "'tag' or 'refused'");
        expect_punct("=");
        if (key.text == "tag") {
          tag = expect(Tok::String, "a tag string").text;
        } else if (key.text == "refused") {
          expect_punct("[");
          do {
            Token r = expect(Tok::String, "a refusal \"backend: reason\"");
            const size_t colon = r.text.find(": ");
            if (colon == std::string::npos) fail(r, "a refusal reads \"backend: reason\"");
            refusals.push_back({r.text.substr(0, colon), r.text.substr(colon + 2)});
          } while (accept_punct(","));
          expect_punct("]");
        } else {
          fail(key, "expected 'tag' or 'refused', got '" + key.text + "'");
        }
      } while (accept_punct(","));
      expect_punct("}");
    }
    CallSpec spec;
    spec.op = op_tok.text;
    spec.inputs.assign(inputs.size(), nullptr);
    spec.groups = groups;
    spec.attrs = std::move(attrs);
    spec.result_types = types;
    for (const Token& r : results) spec.result_names.push_back(r.text);
    Node* n = cur_->create_call(std::move(spec));
    n->set_tag(tag);
    n->set_refusals(std::move(refusals));
    for (size_t i = 0; i < inputs.size(); ++i) n->set_input(i, use(inputs[i], n, i));
    for (const Token& r : results) defined_.insert(r.text);
    // A control-flow call's regions follow it: `region { ... }` each.
    while (is_ident("region")) {
      const Token region_tok = take();
      if (!control_flow) fail(region_tok, "only cond and loop own regions; '" + op_tok.text + "' does not");
      parse_graph(n->add_region());
    }
  }

  AttrValue parse_attr_value(const AttrDecl& spec) {
    const Token t = tok_;
    auto mismatch = [&](const std::string& got) -> AttrValue {
      fail(t, "attribute '" + spec.name + "' expects " + std::string(attr_kind_name(spec.kind)) + ", got " + got);
    };
    switch (spec.kind) {
      case AttrKind::Int:
        if (tok_.kind != Tok::Number || looks_float(tok_.text)) return mismatch(describe(tok_));
        return parse_int(take());
      case AttrKind::Float:
        if (!at_number()) return mismatch(describe(tok_));
        return parse_float(take());
      case AttrKind::Bool:
        if (!is_ident("true") && !is_ident("false")) return mismatch(describe(tok_));
        return take().text == "true";
      case AttrKind::String:
        if (tok_.kind != Tok::String) return mismatch(describe(tok_));
        return take().text;
      case AttrKind::DType: {
        if (tok_.kind != Tok::Ident) return mismatch(describe(tok_));
        auto d = parse_dtype(tok_.text);
        if (!d) return mismatch(describe(tok_));
        take();
        return *d;
      }
      case AttrKind::Ints:
      case AttrKind::Floats: {
        if (!is_punct("[")) return mismatch(describe(tok_));
        take();
        std::vector<int64_t> ints;
        std::vector<double> floats;
        if (!accept_punct("]")) {
          do {
            if (spec.kind == AttrKind::Ints) {
              if (tok_.kind != Tok::Number || looks_float(tok_.text)) return mismatch(describe(tok_) + " in the list");
              ints.push_back(parse_int(take()));
            } else {
              if (!at_number()) return mismatch(describe(tok_) + " in the list");
              floats.push_back(parse_float(take()));
            }
          } while (accept_punct(","));
          expect_punct("]");
        }
        if (spec.kind == AttrKind::Ints) return ints;
        return floats;
      }
    }
    return mismatch("an unknown kind");
  }

  void resolve_pending() {
    for (const PendingUse& u : pending_) {
      Value* v = cur_->find_value(u.token.text);
      if (!v) fail(u.token, "use of undefined value %" + u.token.text);
      u.node->set_input(u.index, v);
    }
    pending_.clear();
  }

  uint64_t parse_u64(const char* what) {
    Token t = expect(Tok::Number, what);
    const int64_t v = parse_int(t);
    if (v < 0) fail(t, std::string(what) + " must be non-negative, got " + t.text);
    return static_cast<uint64_t>(v);
  }

  void parse_memory_plan() {
    expect_ident("arena_size");
    expect_punct("=");
    prog_->memory_plan.arena_size = parse_u64("an arena size");
    expect_punct("{");
    while (!accept_punct("}")) {
      Token v = expect(Tok::Value, "a value name or '}'");
      expect_punct("=");
      expect_ident("offset");
      PlannedValue pv;
      pv.offset = parse_u64("an offset");
      expect_ident("size");
      pv.size = parse_u64("a size");
      if (pv.offset > prog_->memory_plan.arena_size || pv.size > prog_->memory_plan.arena_size - pv.offset)
        fail(v, "%" + v.text + " at offset " + std::to_string(pv.offset) + " size " + std::to_string(pv.size) +
                    " does not fit the arena of " + std::to_string(prog_->memory_plan.arena_size) + " bytes");
      if (!prog_->memory_plan.values.emplace(v.text, pv).second) fail(v, "%" + v.text + " is planned twice");
    }
  }

  /// Element tokens of a dense<...> literal are counted as they are checked
  /// and written in a second pass over the same text (`first`, from the
  /// lexer state `after_first`) once the type is known, so that a literal
  /// is never held as tokens, and its bytes are checked against the memory
  /// limit before they are allocated.
  struct Literal {
    Lexer after_first;
    Token first;
    int64_t count = 0;
    bool splat = false;
  };

  bool at_element() const { return at_number() || is_ident("true") || is_ident("false"); }

  Literal parse_literal() {
    const bool list = accept_punct("[");
    Literal lit{lex_, tok_, 0, !list};
    if (!list) {
      if (!at_element()) fail(tok_, "expected a number, true, false or '[', got " + describe(tok_));
      take();
      lit.count = 1;
      return lit;
    }
    if (accept_punct("]")) return lit;
    do {
      if (!at_element()) fail(tok_, "expected a number, true or false, got " + describe(tok_));
      take();
      ++lit.count;
    } while (accept_punct(","));
    expect_punct("]");
    return lit;
  }

  void write_literal(Literal& lit, const TensorType& type, int64_t numel, std::byte* out) {
    const size_t esz = dtype_size(type.dtype);
    if (numel == 0) return;  // a splat of an empty type writes nothing
    if (lit.splat) {
      write_element(type.dtype, lit.first, out);
      for (int64_t i = 1; i < numel; ++i) std::memcpy(out + i * esz, out, esz);
      return;
    }
    Token t = lit.first;
    for (int64_t i = 0; i < numel; ++i) {
      if (i > 0) t = lit.after_first.next();  // the ',' (checked by parse_literal)
      write_element(type.dtype, t, out + i * esz);
      t = lit.after_first.next();
    }
  }

  void parse_store(Store& store) {
    expect_punct("{");
    while (!accept_punct("}")) {
      Token target = expect(Tok::String, "a target string or '}'");
      if (store.count(target.text)) fail(target, "target \"" + target.text + "\" is defined twice");
      expect_punct("=");
      Token kind = expect(Tok::Ident, "dense<...> or opaque<N>");
      if (kind.text != "dense" && kind.text != "opaque") fail(kind, "expected dense<...> or opaque<N>, got '" + kind.text + "'");
      expect_punct("<");
      std::optional<Literal> literal;
      int64_t opaque_bytes = -1;
      if (kind.text == "opaque") {
        Token n = expect(Tok::Number, "a byte count");
        opaque_bytes = parse_int(n);
        if (opaque_bytes < 0) fail(n, "expected a byte count >= 0 in opaque<N>, got " + n.text);
      } else {
        literal.emplace(parse_literal());
      }
      expect_punct(">");
      expect_punct(":");
      Token type_tok = tok_;
      TensorType type = parse_type();  // its bytes fit in int64 (checked there)
      if (!type.is_static()) fail(type_tok, "stored tensors need a static shape, got " + type.str());
      const int64_t numel = *type.max_numel(), nbytes = *type.max_nbytes();
      TensorData data;
      data.type = type;
      if (!literal) {
        if (opaque_bytes != nbytes)
          fail(kind, "opaque<" + std::to_string(opaque_bytes) + "> does not match " + type.str() + " (" +
                         std::to_string(nbytes) + " bytes)");
        store[target.text] = data;  // bytes stay null: elided
        continue;
      }
      if (!literal->splat && literal->count != numel)
        fail(kind, "dense data has " + std::to_string(literal->count) + " element(s), but " + type.str() + " needs " +
                       std::to_string(numel));
      if (literal->splat && numel > 1 && options_.keep_splats) {
        // One element, however many the type has (ParseOptions::keep_splats).
        auto one = std::make_shared<std::vector<std::byte>>(dtype_size(type.dtype));
        write_element(type.dtype, literal->first, one->data());
        data.bytes = std::move(one);
        data.splat = true;
        store[target.text] = std::move(data);
        continue;
      }
      if (const uint64_t limit = memory_limit(); static_cast<uint64_t>(nbytes) > limit)
        fail(kind, "target \"" + target.text + "\": dense data of type " + type.str() + " is " +
                       std::to_string(nbytes) + " bytes, more than the memory limit of " + std::to_string(limit) +
                       " bytes (set EDGEC_MEMORY_LIMIT to change it)");
      auto bytes = std::make_shared<std::vector<std::byte>>(static_cast<size_t>(nbytes));
      write_literal(*literal, type, numel, bytes->data());
      data.bytes = std::move(bytes);
      store[target.text] = std::move(data);
    }
  }

  void write_element(DType dtype, const Token& t, std::byte* out) {
    const bool is_bool_word = t.kind == Tok::Ident && (t.text == "true" || t.text == "false");
    if (dtype == DType::Bool) {
      if (!is_bool_word) fail(t, "expected true or false for a bool tensor, got '" + t.text + "'");
      *out = std::byte{t.text == "true"};
      return;
    }
    if (is_bool_word) fail(t, "expected a number for a " + std::string(dtype_name(dtype)) + " tensor, got '" + t.text + "'");
    if (dtype == DType::Float64) {
      const double d = parse_float(t);
      std::memcpy(out, &d, 8);
      return;
    }
    if (dtype == DType::BFloat16) {  // printed exactly (a bfloat16 is a float32), so read back exactly
      const uint16_t b = double_to_bfloat16(parse_float(t));
      std::memcpy(out, &b, 2);
      return;
    }
    if (is_floating(dtype)) {
      const float f = static_cast<float>(parse_float(t));
      if (dtype == DType::Float32) {
        std::memcpy(out, &f, 4);
      } else {
        Half h = float_to_half(f);
        std::memcpy(out, &h.bits, 2);
      }
      return;
    }
    if (looks_float(t.text)) fail(t, "expected an integer for a " + std::string(dtype_name(dtype)) + " tensor, got '" + t.text + "'");
    const int64_t v = parse_int(t);
    auto check_range = [&](int64_t lo, int64_t hi) {
      if (v < lo || v > hi) fail(t, "value " + t.text + " does not fit " + std::string(dtype_name(dtype)));
    };
    switch (dtype) {
      case DType::Int64: std::memcpy(out, &v, 8); break;
      case DType::Int32: { check_range(INT32_MIN, INT32_MAX); int32_t x = static_cast<int32_t>(v); std::memcpy(out, &x, 4); break; }
      case DType::Int8: { check_range(-128, 127); *out = static_cast<std::byte>(static_cast<int8_t>(v)); break; }
      case DType::UInt8: { check_range(0, 255); *out = static_cast<std::byte>(static_cast<uint8_t>(v)); break; }
      case DType::Int16: { check_range(INT16_MIN, INT16_MAX); int16_t x = static_cast<int16_t>(v); std::memcpy(out, &x, 2); break; }
      case DType::UInt16: { check_range(0, UINT16_MAX); uint16_t x = static_cast<uint16_t>(v); std::memcpy(out, &x, 2); break; }
      case DType::UInt32: { check_range(0, UINT32_MAX); uint32_t x = static_cast<uint32_t>(v); std::memcpy(out, &x, 4); break; }
      // Read as int64: u64 values from 2^63 are written as their wrapped negatives.
      case DType::UInt64: { uint64_t x = static_cast<uint64_t>(v); std::memcpy(out, &x, 8); break; }
      default: break;
    }
  }

  Lexer lex_;
  const std::string& file_;
  Token tok_;
  Program* prog_ = nullptr;
  Graph* cur_ = nullptr;  // The graph being parsed (the program's or a region).
  std::vector<PendingUse> pending_;
  std::set<std::string> defined_;
  ParseOptions options_;
};

}  // namespace

std::unique_ptr<Program> parse_program(std::string_view text, const std::string& filename,
                                       const ParseOptions& options) {
  return Parser(text, filename, options).parse();
}

namespace {

// The limit message of dense data: `what` names it ("target \"w\": dense data").
[[noreturn]] void over_memory_limit(const std::string& what, const TensorType& type, uint64_t nbytes,
                                    uint64_t limit, const std::string& why) {
  throw CompileError(what + " of type " + type.str() + " is " + std::to_string(nbytes) +
                     " bytes, more than the memory limit of " + std::to_string(limit) +
                     " bytes (set EDGEC_MEMORY_LIMIT to change it)" + why);
}

void expand_store(Store& store, const std::string& why) {
  for (auto& [target, data] : store) {
    if (!data.splat) continue;
    const uint64_t nbytes = static_cast<uint64_t>(*data.type.max_nbytes());
    if (const uint64_t limit = memory_limit(); nbytes > limit)
      over_memory_limit("target \"" + target + "\": splat dense data", data.type, nbytes, limit, why);
    const size_t esz = dtype_size(data.type.dtype);
    auto bytes = std::make_shared<std::vector<std::byte>>(static_cast<size_t>(nbytes));
    for (size_t at = 0; at < bytes->size(); at += esz) std::memcpy(bytes->data() + at, data.bytes->data(), esz);
    data.bytes = std::move(bytes);
    data.splat = false;
  }
}

}  // namespace

void expand_splats(Program& program, const std::string& why) {
  expand_store(program.constants, why);
  expand_store(program.state, why);
  for (Delegate& d : program.delegates)
    if (d.program) expand_splats(*d.program, why);
}

}  // namespace edgec
