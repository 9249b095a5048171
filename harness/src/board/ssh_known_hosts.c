/* Host-key verification against an OpenSSH known_hosts file (ssh.h), read as OpenSSH reads it
 * (sshd(8), "SSH_KNOWN_HOSTS FILE FORMAT"): one key per line, `[marker] hosts keytype base64
 * [comment]`. The hosts are a comma-separated list of patterns (`*` and `?` wildcards, `!` to
 * negate, `[host]:port` for a port other than 22, matched without regard to case) or one hashed
 * name (`|1|salt|HMAC-SHA1(salt, name)`, HashKnownHosts). A host may have several lines, and so
 * several keys: the offered key is accepted when any line for the host holds it.
 *
 * Markers: `@revoked` names a key that is refused wherever it is offered, before any other line is
 * considered, and that accepting new keys never adds back. `@cert-authority` names a CA whose
 * host certificates OpenSSH would accept; libssh2 cannot check host certificates, so a board
 * known only through a CA is refused, with a message that says so, instead of being treated as
 * unknown (or accepted as new). A line with another marker, or one that cannot be read, is skipped
 * as OpenSSH skips it.
 *
 * An unknown key stops the connection unless the user opted in (then it is appended as a plain
 * line); a changed key, or a host known only by keys of other types, always stops it. Messages
 * name the known_hosts line (FILE:LINE) that decided. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "board_internal.h"
#include "torq/base/alloc.h"

typedef struct key_type_s {
  int hostkey_type;    /* LIBSSH2_HOSTKEY_TYPE_* */
  const char *name;    /* as in known_hosts and inside the key blob */
  const char *keyscan; /* ssh-keyscan -t */
  const char *methods; /* host key algorithms that yield it, most preferred first */
} key_type_t;

static const key_type_t k_key_types[] = {
    {LIBSSH2_HOSTKEY_TYPE_ED25519, "ssh-ed25519", "ed25519", "ssh-ed25519"},
    {LIBSSH2_HOSTKEY_TYPE_ECDSA_256, "ecdsa-sha2-nistp256", "ecdsa", "ecdsa-sha2-nistp256"},
    {LIBSSH2_HOSTKEY_TYPE_ECDSA_384, "ecdsa-sha2-nistp384", "ecdsa", "ecdsa-sha2-nistp384"},
    {LIBSSH2_HOSTKEY_TYPE_ECDSA_521, "ecdsa-sha2-nistp521", "ecdsa", "ecdsa-sha2-nistp521"},
    {LIBSSH2_HOSTKEY_TYPE_RSA, "ssh-rsa", "rsa", "rsa-sha2-512,rsa-sha2-256,ssh-rsa"},
    {LIBSSH2_HOSTKEY_TYPE_DSS, "ssh-dss", "dsa", "ssh-dss"},
};
#define KEY_TYPE_COUNT (sizeof(k_key_types) / sizeof(k_key_types[0]))

static const key_type_t *key_type_of(int hostkey_type) {
  for (size_t i = 0; i < KEY_TYPE_COUNT; i++) {
    if (k_key_types[i].hostkey_type == hostkey_type) return &k_key_types[i];
  }
  return NULL;
}

/* The name known_hosts uses for the board: "host" on port 22, else "[host]:port". */
static void known_name(const tqh_ssh_session_t *s, char *out, size_t size) {
  if (s->options.port == 22)
    snprintf(out, size, "%s", s->host);
  else
    snprintf(out, size, "[%s]:%u", s->host, s->options.port);
}

/* ---- Reading a line ------------------------------------------------------------------------- */

/* The standard base64 alphabet's value of `c`, or -1. */
static int b64_value(int c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

/* Decodes `n` characters of base64 (padding optional) into `out` (room for n * 3 / 4 bytes);
 * returns the length, or -1 when the text is not base64. */
static long b64_decode(const char *in, size_t n, unsigned char *out) {
  while (n && in[n - 1] == '=') n--;
  if (n % 4 == 1) return -1;
  size_t o = 0;
  unsigned acc = 0;
  int bits = 0;
  for (size_t i = 0; i < n; i++) {
    int v = b64_value((unsigned char)in[i]);
    if (v < 0) return -1;
    acc = (acc << 6) | (unsigned)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (unsigned char)(acc >> bits);
    }
  }
  return (long)o;
}

/* Base64 of `n` bytes into `out` (room for 4 * ceil(n / 3) + 1), with or without padding. */
static void b64_encode(const unsigned char *in, size_t n, int pad, char *out) {
  static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t o = 0;
  for (size_t i = 0; i < n; i += 3) {
    unsigned v = (unsigned)in[i] << 16;
    if (i + 1 < n) v |= (unsigned)in[i + 1] << 8;
    if (i + 2 < n) v |= in[i + 2];
    out[o++] = b64[(v >> 18) & 63];
    out[o++] = b64[(v >> 12) & 63];
    if (i + 1 < n || pad) out[o++] = i + 1 < n ? b64[(v >> 6) & 63] : '=';
    if (i + 2 < n || pad) out[o++] = i + 2 < n ? b64[v & 63] : '=';
  }
  out[o] = '\0';
}

/* `pattern` (`len` bytes, `*` and `?` wildcards) against all of `name`, without regard to case. */
static int wildcard_match(const char *pattern, size_t len, const char *name) {
  while (len) {
    if (*pattern == '*') {
      while (len && *pattern == '*') pattern++, len--;
      if (!len) return 1;
      for (const char *s = name; *s; s++)
        if (wildcard_match(pattern, len, s)) return 1;
      return 0;
    }
    if (!*name) return 0;
    if (*pattern != '?' && tolower((unsigned char)*pattern) != tolower((unsigned char)*name))
      return 0;
    pattern++, len--, name++;
  }
  return !*name;
}

/* A hashed name "|1|base64(salt)|base64(HMAC-SHA1(salt, name))" against `name`. */
static int hashed_match(const char *field, const char *name) {
  if (strncmp(field, "|1|", 3) != 0) return 0;
  const char *salt = field + 3, *bar = strchr(salt, '|');
  if (!bar) return 0;
  size_t salt_len = (size_t)(bar - salt), hash_len = strlen(bar + 1);
  if (salt_len > 64 || hash_len > 64) return 0;
  unsigned char key[48], want[48], got[EVP_MAX_MD_SIZE];
  long k = b64_decode(salt, salt_len, key), w = b64_decode(bar + 1, hash_len, want);
  unsigned got_len = 0;
  if (k <= 0 || w != 20) return 0;
  if (!HMAC(EVP_sha1(), key, (int)k, (const unsigned char *)name, strlen(name), got, &got_len))
    return 0;
  return got_len == 20 && memcmp(got, want, 20) == 0;
}

/* Whether the hosts field of a line names `name`: a hashed name, or a pattern list in which some
 * pattern matches and no negated one does. */
static int hosts_match(const char *hosts, const char *name) {
  if (hosts[0] == '|') return hashed_match(hosts, name);
  int matched = 0;
  for (const char *p = hosts; *p;) {
    size_t len = strcspn(p, ",");
    int negated = *p == '!';
    if (wildcard_match(p + negated, len - (size_t)negated, name)) {
      if (negated) return 0;
      matched = 1;
    }
    p += len;
    if (*p == ',') p++;
  }
  return matched;
}

/* The next blank-separated word of *p (NUL-terminated in place), or NULL. */
static char *next_word(char **p) {
  char *s = *p;
  while (*s == ' ' || *s == '\t') s++;
  if (!*s || *s == '\n' || *s == '\r') return NULL;
  char *w = s;
  while (*s && *s != ' ' && *s != '\t' && *s != '\n' && *s != '\r') s++;
  if (*s) *s++ = '\0';
  *p = s;
  return w;
}

/* ---- Scanning the file for one host --------------------------------------------------------- */

enum { MARK_NONE, MARK_REVOKED, MARK_CA };

/* What the known_hosts lines for one host say about one offered key (line numbers, 0: none). */
typedef struct scan_s {
  const char *name;         /* the host as known_hosts names it */
  const unsigned char *key; /* the offered key blob, or NULL (only which types are known) */
  size_t key_len;
  const char *key_type; /* its type's name */
  unsigned match;       /* a plain line with this key */
  unsigned revoked;     /* an @revoked line with this key */
  unsigned changed;     /* a plain line with another key of the same type */
  unsigned other;       /* a plain line with a key of another type (other_type) */
  char other_type[64];
  unsigned ca;               /* an @cert-authority line for the host */
  int known[KEY_TYPE_COUNT]; /* a plain line holds a key of k_key_types[i] */
} scan_t;

static void scan_line(scan_t *sc, char *line, unsigned lineno) {
  char *p = line;
  while (*p == ' ' || *p == '\t') p++;
  if (*p == '#') return;
  int mark = MARK_NONE;
  if (*p == '@') {
    char *m = next_word(&p);
    if (m && !strcmp(m, "@revoked"))
      mark = MARK_REVOKED;
    else if (m && !strcmp(m, "@cert-authority"))
      mark = MARK_CA;
    else
      return;
  }
  char *hosts = next_word(&p), *type = next_word(&p), *text = next_word(&p);
  if (!hosts || !type || !text || !hosts_match(hosts, sc->name)) return;
  size_t n = strlen(text);
  unsigned char *blob = tq_malloc(n / 4 * 3 + 3);
  if (!blob) return;
  long len = b64_decode(text, n, blob);
  /* The blob starts with its own type's name, which must be the line's. */
  size_t tlen = strlen(type);
  int ok =
      len >= 4 && (size_t)len - 4 >= tlen &&
      ((size_t)blob[0] << 24 | (size_t)blob[1] << 16 | (size_t)blob[2] << 8 | blob[3]) == tlen &&
      memcmp(blob + 4, type, tlen) == 0;
  int same = ok && sc->key && (size_t)len == sc->key_len && !memcmp(blob, sc->key, sc->key_len);
  tq_free(blob);
  if (!ok) return;
  if (mark == MARK_CA) {
    if (!sc->ca) sc->ca = lineno;
    return;
  }
  if (mark == MARK_REVOKED) {
    if (same && !sc->revoked) sc->revoked = lineno;
    return;
  }
  for (size_t i = 0; i < KEY_TYPE_COUNT; i++)
    if (!strcmp(type, k_key_types[i].name)) sc->known[i] = 1;
  if (!sc->key) return;
  if (same) {
    if (!sc->match) sc->match = lineno;
  } else if (!strcmp(type, sc->key_type)) {
    if (!sc->changed) sc->changed = lineno;
  } else if (!sc->other) {
    sc->other = lineno;
    snprintf(sc->other_type, sizeof(sc->other_type), "%s", type);
  }
}

/* Reads the whole known_hosts file into `sc`; a missing file is an empty one. */
static tq_status_t scan_file(const tqh_ssh_session_t *s, scan_t *sc) {
  FILE *f = fopen(s->known_hosts, "re");
  if (!f) {
    if (errno == ENOENT) return NULL;
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "cannot read the known_hosts file %s: %s", s->known_hosts,
                     strerror(errno));
  }
  char *line = NULL;
  size_t cap = 0;
  unsigned lineno = 0;
  while (getline(&line, &cap, f) >= 0) scan_line(sc, line, ++lineno);
  int failed = ferror(f);
  free(line);
  fclose(f);
  if (failed)
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "cannot read the known_hosts file %s", s->known_hosts);
  return NULL;
}

/* ---- Key types to ask for ------------------------------------------------------------------- */

/* 1 when the comma-separated `list` holds `name`. */
static int list_has(const char *list, const char *name) {
  size_t n = strlen(name);
  for (const char *p = list; p && *p;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == n && memcmp(p, name, n) == 0) return 1;
    p = end ? end + 1 : NULL;
  }
  return 0;
}

static void append_method(char *out, size_t size, const char *method) {
  if (list_has(out, method)) return;
  size_t len = strlen(out);
  snprintf(out + len, size - len, "%s%s", len ? "," : "", method);
}

tq_status_t tqh__ssh_prefer_known_key_types(tqh_ssh_session_t *s) {
  scan_t sc;
  memset(&sc, 0, sizeof(sc));
  char name[512];
  known_name(s, name, sizeof(name));
  sc.name = name;
  TQ_TRY(scan_file(s, &sc));
  const char **algs = NULL;
  int nalgs = libssh2_session_supported_algs(s->ssh, LIBSSH2_METHOD_HOSTKEY, &algs);
  char prefs[1024] = "";
  int known_any = 0;
  for (size_t i = 0; i < KEY_TYPE_COUNT; i++) {
    if (!sc.known[i]) continue;
    known_any = 1;
    char methods[128];
    snprintf(methods, sizeof(methods), "%s", k_key_types[i].methods);
    for (char *save = NULL, *m = strtok_r(methods, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
      for (int a = 0; a < nalgs; a++) {
        if (strcmp(algs[a], m) == 0) append_method(prefs, sizeof(prefs), m);
      }
    }
  }
  if (known_any && prefs[0]) {
    /* Then the rest, in libssh2's own order: a board known by another type still gets a clear
     * "changed" error rather than a failed key exchange. */
    for (int a = 0; a < nalgs; a++) append_method(prefs, sizeof(prefs), algs[a]);
    (void)libssh2_session_method_pref(s->ssh, LIBSSH2_METHOD_HOSTKEY, prefs);
  }
  if (nalgs > 0) libssh2_free(s->ssh, (void *)algs);
  return NULL;
}

/* ---- Checking the offered key --------------------------------------------------------------- */

/* "SHA256:<base64 without padding>", as OpenSSH prints fingerprints. */
static void fingerprint(LIBSSH2_SESSION *ssh, char *out, size_t size) {
  const unsigned char *h =
      (const unsigned char *)libssh2_hostkey_hash(ssh, LIBSSH2_HOSTKEY_HASH_SHA256);
  char text[64];
  if (h) b64_encode(h, 32, 0, text);
  snprintf(out, size, "SHA256:%s", h ? text : "(unknown)");
}

/* Appends the board's key to the known_hosts file (creating ~/.ssh and the file as OpenSSH
 * would), as one plain OpenSSH line. */
static tq_status_t append_known_host(tqh_ssh_session_t *s, const char *name, const char *key,
                                     size_t key_len, const key_type_t *type) {
  size_t cap = strlen(name) + strlen(type->name) + (key_len + 2) / 3 * 4 + 8;
  char *line = tq_malloc(cap);
  if (!line) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory (known hosts)");
  int head = snprintf(line, cap, "%s %s ", name, type->name);
  b64_encode((const unsigned char *)key, key_len, 1, line + head);
  size_t len = strlen(line);
  line[len++] = '\n';

  tq_status_t st = NULL;
  char *slash = strrchr(s->known_hosts, '/');
  if (slash && slash != s->known_hosts) {
    *slash = '\0';
    if (mkdir(s->known_hosts, 0700) != 0 && errno != EEXIST)
      st = TQ_STATUS(TQ_IO, "cannot create %s: %s", s->known_hosts, strerror(errno));
    *slash = '/';
  }
  int fd = st ? -1 : open(s->known_hosts, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (!st && fd < 0)
    st = TQ_STATUS(TQ_IO, "cannot add the host key of %s to %s: %s", s->target, s->known_hosts,
                   strerror(errno));
  if (!st) {
    int ok = 1;
    struct stat sb;
    if (fstat(fd, &sb) == 0 && sb.st_size > 0) {
      char last = '\n';
      if (pread(fd, &last, 1, sb.st_size - 1) == 1 && last != '\n') ok = write(fd, "\n", 1) == 1;
    }
    if (ok) ok = write(fd, line, len) == (ssize_t)len;
    int err = errno;
    if (close(fd) != 0 && ok) {
      ok = 0;
      err = errno;
    }
    if (!ok)
      st = TQ_STATUS(TQ_IO, "cannot add the host key of %s to %s: %s", s->target, s->known_hosts,
                     strerror(err));
  }
  tq_free(line);
  return st;
}

tq_status_t tqh__ssh_check_host_key(tqh_ssh_session_t *s) {
  size_t key_len = 0;
  int hostkey_type = 0;
  const char *key = libssh2_session_hostkey(s->ssh, &key_len, &hostkey_type);
  if (!key) return tqh__ssh_error(s, 0, "reading the board's host key");
  const key_type_t *type = key_type_of(hostkey_type);
  if (!type) {
    return TQ_STATUS(TQ_FAILED_PRECONDITION, "%s offers a host key of a type libssh2 cannot check",
                     s->target);
  }
  char fp[80], name[512];
  fingerprint(s->ssh, fp, sizeof(fp));
  known_name(s, name, sizeof(name));
  scan_t sc;
  memset(&sc, 0, sizeof(sc));
  sc.name = name;
  sc.key = (const unsigned char *)key;
  sc.key_len = key_len;
  sc.key_type = type->name;
  TQ_TRY(scan_file(s, &sc));
  const char *kh = s->known_hosts;
  if (sc.revoked) {
    return TQ_STATUS(TQ_FAILED_PRECONDITION,
                     "REVOKED HOST KEY for %s: the board offers the %s key %s, which %s:%u marks "
                     "@revoked (a stolen key, or one taken out of service, may be impersonating "
                     "the board). Refused; accepting new host keys never overrides a revoked key. "
                     "Ask whoever runs the board for its current key",
                     name, type->name, fp, kh, sc.revoked);
  }
  if (sc.match) return NULL;
  if (sc.changed) {
    return TQ_STATUS(
        TQ_FAILED_PRECONDITION,
        "HOST KEY CHANGED for %s: the board offers the %s key %s, which is not the key "
        "%s holds for it (%s:%u). Someone may be intercepting the connection, or the "
        "board was reinstalled. Only if you know it was: remove the old key with "
        "`ssh-keygen -R '%s' -f %s` and connect again (accepting new host keys does "
        "not override a changed key)",
        name, type->name, fp, kh, kh, sc.changed, name, kh);
  }
  if (sc.other) {
    return TQ_STATUS(
        TQ_FAILED_PRECONDITION,
        "HOST KEY CHANGED for %s: the board offers the %s key %s, but %s holds a key "
        "of type %s for it (%s:%u). The board may have been reinstalled, or someone may be "
        "intercepting the connection. Only if you know it was reinstalled: remove "
        "the old key with `ssh-keygen -R '%s' -f %s` and connect again",
        name, type->name, fp, kh, sc.other_type, kh, sc.other, name, kh);
  }
  if (sc.ca) {
    return TQ_STATUS(TQ_FAILED_PRECONDITION,
                     "the host key of %s cannot be verified: %s:%u trusts a certificate "
                     "authority (@cert-authority) for it, but host certificates are not supported "
                     "here (libssh2 cannot check them) and no plain key is listed for it. Check "
                     "the board's %s key %s with the board, then add it (`ssh-keyscan -p %u -t %s "
                     "%s >> %s`); accepting new host keys does not apply to a board that a "
                     "certificate authority vouches for",
                     name, kh, sc.ca, type->name, fp, s->options.port, type->keyscan, s->host, kh);
  }
  if (s->options.accept_new_host_key) return append_known_host(s, name, key, key_len, type);
  return TQ_STATUS(TQ_FAILED_PRECONDITION,
                   "the host key of %s is unknown: the board offers the %s key %s and %s has no "
                   "entry for it. Check that fingerprint with the board (ssh-keygen -lf "
                   "/etc/ssh/ssh_host_%s_key.pub), then add the key (`ssh-keyscan -p %u -t %s %s "
                   ">> %s`, or log in once with ssh), or opt in to accepting new host keys",
                   name, type->name, fp, kh, type->keyscan, s->options.port, type->keyscan, s->host,
                   kh);
}
