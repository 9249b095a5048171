/* A zip archive in memory (transfer_internal.h), as the Torq dashboard takes a batch: entries
 * stored without compression (the bodies are small, mostly text or already dense protobuf),
 * each with its CRC-32 and sizes in the local header, then the central directory and its end
 * record (PKWARE's APPNOTE: local header signature 0x04034b50, central 0x02014b50, end
 * 0x06054b50). Times are all 1980-01-01 00:00 (DOS time 0, date 0x21), so the same files make
 * the same bytes. */
#include <string.h>

#include "torq/base/alloc.h"
#include "transfer_internal.h"

#define ZIP_VERSION 20  /* 2.0: what a stored entry in a folder needs */
#define DOS_DATE 0x0021 /* 1980-01-01 */
#define MAX_ENTRY 0xFFFFFFFEu

static uint32_t crc_table[256];
static int crc_ready;

static void crc_init(void) {
  for (uint32_t n = 0; n < 256; n++) {
    uint32_t c = n;
    for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    crc_table[n] = c;
  }
  crc_ready = 1;
}

uint32_t tqh__crc32(const void *data, size_t len) {
  if (!crc_ready) crc_init();
  const unsigned char *p = data;
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < len; i++) c = crc_table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

static tq_status_t put16(tq_buf_t *b, unsigned v) {
  unsigned char x[2] = {(unsigned char)v, (unsigned char)(v >> 8)};
  return tq_buf_append(b, x, 2);
}

static tq_status_t put32(tq_buf_t *b, uint32_t v) {
  unsigned char x[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                        (unsigned char)(v >> 24)};
  return tq_buf_append(b, x, 4);
}

void tqh__zip_init(tqh__zip_t *z) {
  memset(z, 0, sizeof(*z));
  tq_buf_init(&z->out, 0);
  tq_buf_init(&z->central, 0);
}

void tqh__zip_deinit(tqh__zip_t *z) {
  tq_buf_deinit(&z->out);
  tq_buf_deinit(&z->central);
  memset(z, 0, sizeof(*z));
}

/* The fields a local header and a central record share, from "version needed" on. */
static tq_status_t common(tq_buf_t *b, uint32_t crc, uint32_t size, size_t name_len) {
  TQ_TRY(put16(b, ZIP_VERSION));
  TQ_TRY(put16(b, 1u << 11)); /* flags: the name is UTF-8 */
  TQ_TRY(put16(b, 0));        /* stored */
  TQ_TRY(put16(b, 0));        /* time */
  TQ_TRY(put16(b, DOS_DATE));
  TQ_TRY(put32(b, crc));
  TQ_TRY(put32(b, size)); /* compressed */
  TQ_TRY(put32(b, size));
  TQ_TRY(put16(b, (unsigned)name_len));
  return put16(b, 0); /* extra field */
}

tq_status_t tqh__zip_add(tqh__zip_t *z, const char *name, const void *data, size_t len) {
  size_t name_len = strlen(name);
  if (!name_len || name_len > 0xFFFF || name[0] == '/' || strstr(name, ".."))
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "'%s' cannot name a zip entry", name);
  if (len > MAX_ENTRY || z->out.len > MAX_ENTRY - len || z->entries == 0xFFFF)
    return TQ_STATUS(TQ_LIMIT, "zip: '%s' makes the archive larger than a zip without its "
                     "64-bit extension holds", name);
  uint32_t crc = tqh__crc32(data, len), offset = (uint32_t)z->out.len;
  TQ_TRY(put32(&z->out, 0x04034b50));
  TQ_TRY(common(&z->out, crc, (uint32_t)len, name_len));
  TQ_TRY(tq_buf_append(&z->out, name, name_len));
  if (len) TQ_TRY(tq_buf_append(&z->out, data, len));
  TQ_TRY(put32(&z->central, 0x02014b50));
  TQ_TRY(put16(&z->central, ZIP_VERSION)); /* made by: MS-DOS-compatible, 2.0 */
  TQ_TRY(common(&z->central, crc, (uint32_t)len, name_len));
  TQ_TRY(put16(&z->central, 0)); /* comment */
  TQ_TRY(put16(&z->central, 0)); /* disk */
  TQ_TRY(put16(&z->central, 0)); /* internal attributes */
  TQ_TRY(put32(&z->central, 0)); /* external attributes */
  TQ_TRY(put32(&z->central, offset));
  TQ_TRY(tq_buf_append(&z->central, name, name_len));
  z->entries++;
  return NULL;
}

tq_status_t tqh__zip_finish(tqh__zip_t *z) {
  if (z->out.len > MAX_ENTRY || z->central.len > MAX_ENTRY - z->out.len)
    return TQ_STATUS(TQ_LIMIT, "zip: the archive is too large");
  uint32_t dir_offset = (uint32_t)z->out.len, dir_size = (uint32_t)z->central.len;
  TQ_TRY(tq_buf_append(&z->out, z->central.data ? z->central.data : "", z->central.len));
  TQ_TRY(put32(&z->out, 0x06054b50));
  TQ_TRY(put16(&z->out, 0)); /* this disk */
  TQ_TRY(put16(&z->out, 0)); /* the directory's disk */
  TQ_TRY(put16(&z->out, (unsigned)z->entries));
  TQ_TRY(put16(&z->out, (unsigned)z->entries));
  TQ_TRY(put32(&z->out, dir_size));
  TQ_TRY(put32(&z->out, dir_offset));
  return put16(&z->out, 0); /* comment */
}
