/* Source snippets for compiler-style diagnostics. */
#include "torq/base/diag.h"

#include <string.h>

static int is_cont(char c) { return ((unsigned char)c & 0xC0) == 0x80; }

static int ends_line(char c, unsigned flags) {
  return c == '\n' || (c == '\r' && (flags & TQ_DIAG_CR_BREAKS));
}

tq_status_t tq_diag_append_snippet(tq_buf_t *out, const char *text, size_t len, uint32_t line,
                                   uint32_t col, const tq_diag_style_t *style) {
  static const tq_diag_style_t defaults = {TQ_DIAG_DEFAULT_LONG_LINE, TQ_DIAG_DEFAULT_WINDOW, 0};
  if (!style) style = &defaults;
  const unsigned flags = style->flags;
  const int utf8 = (flags & TQ_DIAG_UTF8_COLUMNS) != 0;
  if (!text || line == 0) return NULL;
  /* Find the line: diagnostics are rare, a scan from the start is fine. */
  size_t start = 0;
  uint32_t l = 1;
  while (l < line && start < len) {
    size_t i = start;
    while (i < len && !ends_line(text[i], flags)) i++;
    if (i >= len) return NULL;
    if (text[i] == '\r' && i + 1 < len && text[i + 1] == '\n') i++;
    start = i + 1;
    l++;
  }
  if (l != line) return NULL;
  size_t end = start;
  while (end < len && !ends_line(text[end], flags)) end++;
  if (end > start && text[end - 1] == '\r') end--;
  /* The caret's byte; past the end of the line it goes just after it. */
  size_t caret = start;
  if (utf8) {
    for (uint32_t c = 1; c < col && caret < end; c++) {
      caret++;
      while (caret < end && is_cont(text[caret])) caret++;
    }
  } else {
    size_t c = col > 0 ? col - 1 : 0;
    caret = start + (c < end - start ? c : end - start);
  }
  size_t from = start, to = end;
  const char *lead = "", *trail = "";
  if (style->long_line && end - start > style->long_line) {
    if (caret - start > style->window) {
      from = caret - style->window;
      while (utf8 && from < caret && is_cont(text[from])) from++;
      lead = "...";
    }
    if (end - caret > style->window) {
      to = caret + style->window;
      while (utf8 && to < end && is_cont(text[to])) to++;
      trail = "...";
    }
  }
  TQ_TRY(tq_buf_printf(out, "\n%s", lead));
  if (flags & TQ_DIAG_SAFE_BYTES) {
    for (size_t i = from; i < to; i++) {
      unsigned char ch = (unsigned char)text[i];
      /* Control bytes would play with the terminal. */
      TQ_TRY(tq_buf_putc(out, (ch < 0x20 && ch != '\t') || ch == 0x7F ? '?' : (char)ch));
    }
  } else {
    const char *nul = memchr(text + from, '\0', to - from);
    TQ_TRY(tq_buf_append(out, text + from, nul ? (size_t)(nul - (text + from)) : to - from));
  }
  TQ_TRY(tq_buf_printf(out, "%s\n%s", trail, lead[0] ? "   " : ""));
  for (size_t i = from; i < caret; i++) {
    if (utf8 && is_cont(text[i])) continue;
    /* Tabs stay tabs so that the caret lines up under them. */
    TQ_TRY(tq_buf_putc(out, text[i] == '\t' ? '\t' : ' '));
  }
  return tq_buf_putc(out, '^');
}
