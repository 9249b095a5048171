/* The MLIR lexer (private). Tokens are views into the text; the lexer never allocates. */
#ifndef TORQ_COMPILER_LEXER_H
#define TORQ_COMPILER_LEXER_H

#include <stddef.h>
#include <stdint.h>

typedef enum tqc_tok_kind_e {
  TQC_TOK_EOF,
  TQC_TOK_ERROR,   /* text holds the offending bytes; the lexer's `error` says why */
  TQC_TOK_BARE_ID, /* func.func, i32, x4xi8, DOUBLE_ROUND */
  TQC_TOK_PERCENT_ID, /* %0, %arg0 */
  TQC_TOK_CARET_ID,   /* ^bb0 */
  TQC_TOK_AT_ID,      /* @main, @"quoted" */
  TQC_TOK_HASH_ID,    /* #loc3, #tosa.rounding_mode, #1 */
  TQC_TOK_EXCL_ID,    /* !tosa.shape */
  TQC_TOK_INTEGER,    /* 42, 0x1F */
  TQC_TOK_FLOAT,      /* 1.5, 6.000000e+00 */
  TQC_TOK_STRING,     /* "..." with its quotes; escapes not decoded */
  TQC_TOK_ARROW,      /* -> */
  TQC_TOK_COLON_COLON,
  TQC_TOK_LBRACE,
  TQC_TOK_RBRACE,
  TQC_TOK_LPAREN,
  TQC_TOK_RPAREN,
  TQC_TOK_LSQUARE,
  TQC_TOK_RSQUARE,
  TQC_TOK_LESS,
  TQC_TOK_GREATER,
  TQC_TOK_COMMA,
  TQC_TOK_EQUAL,
  TQC_TOK_COLON,
  TQC_TOK_QUESTION,
  TQC_TOK_STAR,
  TQC_TOK_PLUS,
  TQC_TOK_MINUS,
  TQC_TOK_VBAR,
  TQC_TOK_FILE_METADATA_BEGIN, /* {-# */
  TQC_TOK_FILE_METADATA_END,   /* #-} */
  TQC_TOK_COUNT
} tqc_tok_kind_t;

typedef struct tqc_token_s {
  tqc_tok_kind_t kind;
  const char *text; /* into the lexed text */
  size_t len;
  size_t offset;
  uint32_t line, col; /* 1-based; col in bytes */
} tqc_token_t;

/* Where the lexer is; saving and restoring it re-lexes from that point. */
typedef struct tqc_lex_pos_s {
  size_t pos;
  size_t line_start;
  uint32_t line;
} tqc_lex_pos_t;

typedef struct tqc_lexer_s {
  const char *text;
  size_t len;
  tqc_lex_pos_t at;
  const char *error; /* static message of the last TQC_TOK_ERROR */
} tqc_lexer_t;

void tqc__lexer_init(tqc_lexer_t *lexer, const char *text, size_t len);

/* Lexes the next token, skipping whitespace and // comments. */
tqc_token_t tqc__lexer_next(tqc_lexer_t *lexer);

/* Skips whitespace and comments without lexing a token. */
void tqc__lexer_skip_space(tqc_lexer_t *lexer);

/* The position of lexer.at as a line and column. */
uint32_t tqc__lexer_col(const tqc_lexer_t *lexer);

/* A name for diagnostics ("'->'", "integer"). */
const char *tqc__tok_kind_name(tqc_tok_kind_t kind);

/* Decodes a string token's contents (escapes \n \t \" \\ \XX) into `out`, which must hold at
 * least token.len bytes. Returns the decoded length; the token must be a valid string. */
size_t tqc__string_decode(const tqc_token_t *token, char *out);

/* 1 for [a-zA-Z_], the first byte of a bare identifier. */
static inline int tqc__is_id_start(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* 1 for the other bytes of a bare identifier: letters, digits, _ $ . */
static inline int tqc__is_id_char(unsigned char c) {
  return tqc__is_id_start(c) || (c >= '0' && c <= '9') || c == '$' || c == '.';
}

#endif
