/* The MLIR lexer. Follows MLIR's token grammar (mlir/lib/AsmParser/Lexer.cpp's shapes, written
 * afresh): identifiers with prefixes % ^ @ # !, numbers, strings, punctuation. A minus sign is its
 * own token; the parser joins it to the number that follows. */
#include "lexer.h"

#include <string.h>

void tqc__lexer_init(tqc_lexer_t *lexer, const char *text, size_t len) {
  memset(lexer, 0, sizeof(*lexer));
  lexer->text = text;
  lexer->len = len;
  lexer->at.line = 1;
}

uint32_t tqc__lexer_col(const tqc_lexer_t *lexer) {
  size_t col = lexer->at.pos - lexer->at.line_start + 1;
  return col > UINT32_MAX ? UINT32_MAX : (uint32_t)col;
}

static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static int is_hex(unsigned char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* MLIR's suffix-id allows '-' as well, which a bare identifier does not. */
static int is_suffix_char(unsigned char c) { return tqc__is_id_char(c) || c == '-'; }

static void newline(tqc_lexer_t *lexer) {
  lexer->at.line_start = lexer->at.pos;
  if (lexer->at.line < UINT32_MAX) lexer->at.line++;
}

void tqc__lexer_skip_space(tqc_lexer_t *lexer) {
  const char *t = lexer->text;
  while (lexer->at.pos < lexer->len) {
    char c = t[lexer->at.pos];
    if (c == '\n') {
      lexer->at.pos++;
      newline(lexer);
    } else if (c == ' ' || c == '\t' || c == '\r') {
      lexer->at.pos++;
    } else if (c == '/' && lexer->at.pos + 1 < lexer->len && t[lexer->at.pos + 1] == '/') {
      const char *nl = memchr(t + lexer->at.pos, '\n', lexer->len - lexer->at.pos);
      lexer->at.pos = nl ? (size_t)(nl - t) : lexer->len;
    } else {
      break;
    }
  }
}

static tqc_token_t make(tqc_lexer_t *lexer, tqc_tok_kind_t kind, size_t start, uint32_t line,
                        uint32_t col) {
  tqc_token_t tok;
  tok.kind = kind;
  tok.text = lexer->text + start;
  tok.len = lexer->at.pos - start;
  tok.offset = start;
  tok.line = line;
  tok.col = col;
  return tok;
}

static tqc_token_t error(tqc_lexer_t *lexer, const char *why, size_t start, uint32_t line,
                         uint32_t col) {
  lexer->error = why;
  if (lexer->at.pos == start && lexer->at.pos < lexer->len) lexer->at.pos++;
  return make(lexer, TQC_TOK_ERROR, start, line, col);
}

/* The body of a string, after its opening quote. */
static int lex_string_body(tqc_lexer_t *lexer, const char **out_why) {
  const char *t = lexer->text;
  while (lexer->at.pos < lexer->len) {
    unsigned char c = (unsigned char)t[lexer->at.pos];
    if (c == '"') {
      lexer->at.pos++;
      return 1;
    }
    if (c == '\n') {
      *out_why = "expected '\"' in string literal";
      return 0;
    }
    if (c == '\\') {
      if (lexer->at.pos + 1 >= lexer->len) break;
      unsigned char e = (unsigned char)t[lexer->at.pos + 1];
      if (e == 'n' || e == 't' || e == '"' || e == '\\') {
        lexer->at.pos += 2;
      } else if (lexer->at.pos + 2 < lexer->len && is_hex(e) &&
                 is_hex((unsigned char)t[lexer->at.pos + 2])) {
        lexer->at.pos += 3;
      } else {
        *out_why = "unknown escape in string literal";
        return 0;
      }
      continue;
    }
    lexer->at.pos++;
  }
  *out_why = "expected '\"' in string literal";
  return 0;
}

static void lex_number(tqc_lexer_t *lexer, tqc_tok_kind_t *out_kind) {
  const char *t = lexer->text;
  size_t n = lexer->len;
  size_t p = lexer->at.pos;
  *out_kind = TQC_TOK_INTEGER;
  if (t[p] == '0' && p + 2 < n && t[p + 1] == 'x' && is_hex((unsigned char)t[p + 2])) {
    p += 2;
    while (p < n && is_hex((unsigned char)t[p])) p++;
    lexer->at.pos = p;
    return;
  }
  while (p < n && is_digit((unsigned char)t[p])) p++;
  if (p < n && t[p] == '.') {
    *out_kind = TQC_TOK_FLOAT;
    p++;
    while (p < n && is_digit((unsigned char)t[p])) p++;
    if (p < n && (t[p] == 'e' || t[p] == 'E')) {
      size_t q = p + 1;
      if (q < n && (t[q] == '+' || t[q] == '-')) q++;
      if (q < n && is_digit((unsigned char)t[q])) {
        while (q < n && is_digit((unsigned char)t[q])) q++;
        p = q;
      }
    }
  }
  lexer->at.pos = p;
}

tqc_token_t tqc__lexer_next(tqc_lexer_t *lexer) {
  tqc__lexer_skip_space(lexer);
  const char *t = lexer->text;
  size_t n = lexer->len;
  size_t start = lexer->at.pos;
  uint32_t line = lexer->at.line;
  uint32_t col = tqc__lexer_col(lexer);
  if (start >= n) return make(lexer, TQC_TOK_EOF, start, line, col);
  unsigned char c = (unsigned char)t[start];
  lexer->at.pos++;
  switch (c) {
  case '{':
    if (start + 2 < n && t[start + 1] == '-' && t[start + 2] == '#') {
      lexer->at.pos = start + 3;
      return make(lexer, TQC_TOK_FILE_METADATA_BEGIN, start, line, col);
    }
    return make(lexer, TQC_TOK_LBRACE, start, line, col);
  case '}': return make(lexer, TQC_TOK_RBRACE, start, line, col);
  case '(': return make(lexer, TQC_TOK_LPAREN, start, line, col);
  case ')': return make(lexer, TQC_TOK_RPAREN, start, line, col);
  case '[': return make(lexer, TQC_TOK_LSQUARE, start, line, col);
  case ']': return make(lexer, TQC_TOK_RSQUARE, start, line, col);
  case '<': return make(lexer, TQC_TOK_LESS, start, line, col);
  case '>': return make(lexer, TQC_TOK_GREATER, start, line, col);
  case ',': return make(lexer, TQC_TOK_COMMA, start, line, col);
  case '=': return make(lexer, TQC_TOK_EQUAL, start, line, col);
  case '?': return make(lexer, TQC_TOK_QUESTION, start, line, col);
  case '*': return make(lexer, TQC_TOK_STAR, start, line, col);
  case '+': return make(lexer, TQC_TOK_PLUS, start, line, col);
  case '|': return make(lexer, TQC_TOK_VBAR, start, line, col);
  case ':':
    if (start + 1 < n && t[start + 1] == ':') {
      lexer->at.pos++;
      return make(lexer, TQC_TOK_COLON_COLON, start, line, col);
    }
    return make(lexer, TQC_TOK_COLON, start, line, col);
  case '-':
    if (start + 1 < n && t[start + 1] == '>') {
      lexer->at.pos++;
      return make(lexer, TQC_TOK_ARROW, start, line, col);
    }
    return make(lexer, TQC_TOK_MINUS, start, line, col);
  case '"': {
    const char *why = NULL;
    if (!lex_string_body(lexer, &why)) return error(lexer, why, start, line, col);
    return make(lexer, TQC_TOK_STRING, start, line, col);
  }
  case '#':
    if (start + 2 < n && t[start + 1] == '-' && t[start + 2] == '}') {
      lexer->at.pos = start + 3;
      return make(lexer, TQC_TOK_FILE_METADATA_END, start, line, col);
    }
    /* fall through */
  case '%':
  case '^':
  case '!':
  case '@': {
    tqc_tok_kind_t kind = c == '#'   ? TQC_TOK_HASH_ID
                          : c == '%' ? TQC_TOK_PERCENT_ID
                          : c == '^' ? TQC_TOK_CARET_ID
                          : c == '!' ? TQC_TOK_EXCL_ID
                                     : TQC_TOK_AT_ID;
    if (c == '@' && lexer->at.pos < n && t[lexer->at.pos] == '"') {
      const char *why = NULL;
      lexer->at.pos++;
      if (!lex_string_body(lexer, &why)) return error(lexer, why, start, line, col);
      return make(lexer, kind, start, line, col);
    }
    size_t p = lexer->at.pos;
    if (p < n && is_digit((unsigned char)t[p])) {
      while (p < n && is_digit((unsigned char)t[p])) p++;
    } else if (p < n && (is_suffix_char((unsigned char)t[p]))) {
      /* @ symbols are bare identifiers (no '-'); the others are suffix ids. */
      if (c == '@' && !tqc__is_id_start((unsigned char)t[p])) {
        return error(lexer, "invalid symbol name", start, line, col);
      }
      while (p < n && (c == '@' ? tqc__is_id_char((unsigned char)t[p])
                                : is_suffix_char((unsigned char)t[p]))) {
        p++;
      }
    } else {
      return error(lexer, "expected an identifier after the prefix", start, line, col);
    }
    lexer->at.pos = p;
    return make(lexer, kind, start, line, col);
  }
  default: break;
  }
  if (is_digit(c)) {
    tqc_tok_kind_t kind;
    lexer->at.pos = start;
    lex_number(lexer, &kind);
    return make(lexer, kind, start, line, col);
  }
  if (tqc__is_id_start(c)) {
    while (lexer->at.pos < n && tqc__is_id_char((unsigned char)t[lexer->at.pos])) lexer->at.pos++;
    return make(lexer, TQC_TOK_BARE_ID, start, line, col);
  }
  return error(lexer, "unexpected character", start, line, col);
}

static int hex_value(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

size_t tqc__string_decode(const tqc_token_t *token, char *out) {
  const char *s = token->text;
  size_t n = token->len;
  size_t i = 0, o = 0;
  /* Skip the opening quote (and the '@' of a quoted symbol) and the closing one. */
  while (i < n && s[i] != '"') i++;
  i++;
  if (n > 0) n--;
  while (i < n) {
    char c = s[i];
    if (c != '\\' || i + 1 >= n) {
      out[o++] = c;
      i++;
      continue;
    }
    char e = s[i + 1];
    switch (e) {
    case 'n': out[o++] = '\n'; i += 2; break;
    case 't': out[o++] = '\t'; i += 2; break;
    case '"': out[o++] = '"'; i += 2; break;
    case '\\': out[o++] = '\\'; i += 2; break;
    default:
      if (i + 2 < n) {
        out[o++] = (char)(hex_value((unsigned char)s[i + 1]) * 16 +
                          hex_value((unsigned char)s[i + 2]));
        i += 3;
      } else {
        out[o++] = c;
        i++;
      }
      break;
    }
  }
  return o;
}

const char *tqc__tok_kind_name(tqc_tok_kind_t kind) {
  static const char *const names[TQC_TOK_COUNT] = {
      [TQC_TOK_EOF] = "end of file",
      [TQC_TOK_ERROR] = "invalid token",
      [TQC_TOK_BARE_ID] = "identifier",
      [TQC_TOK_PERCENT_ID] = "SSA value",
      [TQC_TOK_CARET_ID] = "block label",
      [TQC_TOK_AT_ID] = "symbol",
      [TQC_TOK_HASH_ID] = "attribute alias",
      [TQC_TOK_EXCL_ID] = "dialect type",
      [TQC_TOK_INTEGER] = "integer",
      [TQC_TOK_FLOAT] = "float",
      [TQC_TOK_STRING] = "string",
      [TQC_TOK_ARROW] = "'->'",
      [TQC_TOK_COLON_COLON] = "'::'",
      [TQC_TOK_LBRACE] = "'{'",
      [TQC_TOK_RBRACE] = "'}'",
      [TQC_TOK_LPAREN] = "'('",
      [TQC_TOK_RPAREN] = "')'",
      [TQC_TOK_LSQUARE] = "'['",
      [TQC_TOK_RSQUARE] = "']'",
      [TQC_TOK_LESS] = "'<'",
      [TQC_TOK_GREATER] = "'>'",
      [TQC_TOK_COMMA] = "','",
      [TQC_TOK_EQUAL] = "'='",
      [TQC_TOK_COLON] = "':'",
      [TQC_TOK_QUESTION] = "'?'",
      [TQC_TOK_STAR] = "'*'",
      [TQC_TOK_PLUS] = "'+'",
      [TQC_TOK_MINUS] = "'-'",
      [TQC_TOK_VBAR] = "'|'",
      [TQC_TOK_FILE_METADATA_BEGIN] = "'{-#'",
      [TQC_TOK_FILE_METADATA_END] = "'#-}'",
  };
  return (unsigned)kind < TQC_TOK_COUNT && names[kind] ? names[kind] : "token";
}
