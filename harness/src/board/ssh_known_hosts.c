/* Host-key verification against an OpenSSH known_hosts file (ssh.h): `host` entries for port 22,
 * `[host]:port` entries otherwise (as OpenSSH writes them), plain or hashed (|1|salt|hash).
 * An unknown key stops the connection unless the user opted in (then it is appended); a changed
 * key, or a host known only by keys of other types, always stops it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "board_internal.h"
#include "torq/base/alloc.h"

typedef struct key_type_s {
  int hostkey_type;    /* LIBSSH2_HOSTKEY_TYPE_* */
  int knownhost_mask;  /* LIBSSH2_KNOWNHOST_KEY_* */
  const char *name;    /* as in known_hosts */
  const char *keyscan; /* ssh-keyscan -t */
  const char *methods; /* host key algorithms that yield it, most preferred first */
} key_type_t;

static const key_type_t k_key_types[] = {
    {LIBSSH2_HOSTKEY_TYPE_ED25519, LIBSSH2_KNOWNHOST_KEY_ED25519, "ssh-ed25519", "ed25519",
     "ssh-ed25519"},
    {LIBSSH2_HOSTKEY_TYPE_ECDSA_256, LIBSSH2_KNOWNHOST_KEY_ECDSA_256, "ecdsa-sha2-nistp256",
     "ecdsa", "ecdsa-sha2-nistp256"},
    {LIBSSH2_HOSTKEY_TYPE_ECDSA_384, LIBSSH2_KNOWNHOST_KEY_ECDSA_384, "ecdsa-sha2-nistp384",
     "ecdsa", "ecdsa-sha2-nistp384"},
    {LIBSSH2_HOSTKEY_TYPE_ECDSA_521, LIBSSH2_KNOWNHOST_KEY_ECDSA_521, "ecdsa-sha2-nistp521",
     "ecdsa", "ecdsa-sha2-nistp521"},
    {LIBSSH2_HOSTKEY_TYPE_RSA, LIBSSH2_KNOWNHOST_KEY_SSHRSA, "ssh-rsa", "rsa",
     "rsa-sha2-512,rsa-sha2-256,ssh-rsa"},
    {LIBSSH2_HOSTKEY_TYPE_DSS, LIBSSH2_KNOWNHOST_KEY_SSHDSS, "ssh-dss", "dsa", "ssh-dss"},
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

/* Reads the known_hosts file into a libssh2 collection, line by line: libssh2_knownhost_readfile
 * stops at the first line it cannot parse (a key type it does not know, @cert-authority), where
 * OpenSSH skips such lines; so do we. A missing file is an empty one. */
static tq_status_t load_known_hosts(tqh_ssh_session_t *s, LIBSSH2_KNOWNHOSTS **out_kh) {
  *out_kh = libssh2_knownhost_init(s->ssh);
  if (!*out_kh) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory (known hosts)");
  FILE *f = fopen(s->known_hosts, "re");
  if (!f) {
    if (errno == ENOENT) return NULL;
    tq_status_t st = TQ_STATUS(TQ_INVALID_ARGUMENT, "cannot read the known_hosts file %s: %s",
                               s->known_hosts, strerror(errno));
    libssh2_knownhost_free(*out_kh);
    *out_kh = NULL;
    return st;
  }
  char *line = NULL;
  size_t cap = 0;
  while (getline(&line, &cap, f) > 0) {
    char *p = line;
    while (*p == ' ' || *p == '\t') p++;
    if (*p == '#' || *p == '@' || *p == '\n' || *p == '\r' || !*p) continue;
    (void)libssh2_knownhost_readline(*out_kh, p, strlen(p), LIBSSH2_KNOWNHOST_FILE_OPENSSH);
  }
  free(line);
  fclose(f);
  return NULL;
}

/* 1 when the collection holds a key of `type` for `name` (any key: a made-up one mismatches). */
static int knows_type(LIBSSH2_KNOWNHOSTS *kh, const char *name, const key_type_t *type) {
  static const char probe[] = "torq-bench: no key has these bytes";
  int rc = libssh2_knownhost_check(
      kh, name, probe, sizeof(probe) - 1,
      LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW | type->knownhost_mask, NULL);
  return rc == LIBSSH2_KNOWNHOST_CHECK_MISMATCH || rc == LIBSSH2_KNOWNHOST_CHECK_MATCH;
}

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
  LIBSSH2_KNOWNHOSTS *kh = NULL;
  TQ_TRY(load_known_hosts(s, &kh));
  char name[512];
  known_name(s, name, sizeof(name));
  const char **algs = NULL;
  int nalgs = libssh2_session_supported_algs(s->ssh, LIBSSH2_METHOD_HOSTKEY, &algs);
  char prefs[1024] = "";
  int known_any = 0;
  for (size_t i = 0; i < KEY_TYPE_COUNT; i++) {
    if (!knows_type(kh, name, &k_key_types[i])) continue;
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
  libssh2_knownhost_free(kh);
  return NULL;
}

/* "SHA256:<base64 without padding>", as OpenSSH prints fingerprints. */
static void fingerprint(LIBSSH2_SESSION *ssh, char *out, size_t size) {
  static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const unsigned char *h =
      (const unsigned char *)libssh2_hostkey_hash(ssh, LIBSSH2_HOSTKEY_HASH_SHA256);
  if (!h) {
    snprintf(out, size, "SHA256:(unknown)");
    return;
  }
  char text[64] = "SHA256:";
  size_t o = strlen(text);
  for (size_t i = 0; i < 32; i += 3) {
    unsigned v = (unsigned)h[i] << 16;
    if (i + 1 < 32) v |= (unsigned)h[i + 1] << 8;
    if (i + 2 < 32) v |= h[i + 2];
    text[o++] = b64[(v >> 18) & 63];
    text[o++] = b64[(v >> 12) & 63];
    if (i + 1 < 32) text[o++] = b64[(v >> 6) & 63];
    if (i + 2 < 32) text[o++] = b64[v & 63];
  }
  text[o] = '\0';
  snprintf(out, size, "%s", text);
}

/* Appends the board's key to the known_hosts file (creating ~/.ssh and the file as OpenSSH
 * would), as one plain OpenSSH line. */
static tq_status_t append_known_host(tqh_ssh_session_t *s, LIBSSH2_KNOWNHOSTS *kh, const char *name,
                                     const char *key, size_t key_len, const key_type_t *type) {
  struct libssh2_knownhost *entry = NULL;
  int rc = libssh2_knownhost_addc(
      kh, name, NULL, key, key_len, NULL, 0,
      LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW | type->knownhost_mask, &entry);
  if (rc) return tqh__ssh_error(s, rc, "adding the host key to %s", s->known_hosts);
  char line[16384];
  size_t len = 0;
  rc = libssh2_knownhost_writeline(kh, entry, line, sizeof(line), &len,
                                   LIBSSH2_KNOWNHOST_FILE_OPENSSH);
  if (rc) return tqh__ssh_error(s, rc, "formatting the host key for %s", s->known_hosts);

  char *slash = strrchr(s->known_hosts, '/');
  if (slash && slash != s->known_hosts) {
    *slash = '\0';
    if (mkdir(s->known_hosts, 0700) != 0 && errno != EEXIST) {
      tq_status_t st = TQ_STATUS(TQ_IO, "cannot create %s: %s", s->known_hosts, strerror(errno));
      *slash = '/';
      return st;
    }
    *slash = '/';
  }
  int fd = open(s->known_hosts, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return TQ_STATUS(TQ_IO, "cannot add the host key of %s to %s: %s", s->target, s->known_hosts,
                     strerror(errno));
  }
  int ok = 1;
  struct stat st;
  if (fstat(fd, &st) == 0 && st.st_size > 0) {
    char last = '\n';
    if (pread(fd, &last, 1, st.st_size - 1) == 1 && last != '\n') ok = write(fd, "\n", 1) == 1;
  }
  if (ok) ok = write(fd, line, len) == (ssize_t)len;
  int err = errno;
  if (close(fd) != 0 && ok) {
    ok = 0;
    err = errno;
  }
  if (!ok) {
    return TQ_STATUS(TQ_IO, "cannot add the host key of %s to %s: %s", s->target, s->known_hosts,
                     strerror(err));
  }
  return NULL;
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
  char fp[64], name[512];
  fingerprint(s->ssh, fp, sizeof(fp));
  known_name(s, name, sizeof(name));

  LIBSSH2_KNOWNHOSTS *kh = NULL;
  TQ_TRY(load_known_hosts(s, &kh));
  int rc = libssh2_knownhost_check(
      kh, name, key, key_len,
      LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW | type->knownhost_mask, NULL);
  tq_status_t st = NULL;
  if (rc == LIBSSH2_KNOWNHOST_CHECK_MATCH) {
    st = NULL;
  } else if (rc == LIBSSH2_KNOWNHOST_CHECK_MISMATCH) {
    st = TQ_STATUS(TQ_FAILED_PRECONDITION,
                   "HOST KEY CHANGED for %s: the board offers the %s key %s, which is not the key "
                   "%s holds for it. Someone may be intercepting the connection, or the board was "
                   "reinstalled. Only if you know it was: remove the old key with "
                   "`ssh-keygen -R '%s' -f %s` and connect again (accepting new host keys does "
                   "not override a changed key)",
                   name, type->name, fp, s->known_hosts, name, s->known_hosts);
  } else if (rc == LIBSSH2_KNOWNHOST_CHECK_NOTFOUND) {
    const key_type_t *other = NULL;
    for (size_t i = 0; i < KEY_TYPE_COUNT && !other; i++) {
      if (&k_key_types[i] != type && knows_type(kh, name, &k_key_types[i])) other = &k_key_types[i];
    }
    if (other) {
      st = TQ_STATUS(TQ_FAILED_PRECONDITION,
                     "HOST KEY CHANGED for %s: the board offers the %s key %s, but %s holds a %s "
                     "key for it. The board may have been reinstalled, or someone may be "
                     "intercepting the connection. Only if you know it was reinstalled: remove "
                     "the old key with `ssh-keygen -R '%s' -f %s` and connect again",
                     name, type->name, fp, s->known_hosts, other->name, name, s->known_hosts);
    } else if (s->options.accept_new_host_key) {
      st = append_known_host(s, kh, name, key, key_len, type);
    } else {
      st = TQ_STATUS(TQ_FAILED_PRECONDITION,
                     "the host key of %s is unknown: the board offers the %s key %s and %s has no "
                     "entry for it. Check that fingerprint with the board (ssh-keygen -lf "
                     "/etc/ssh/ssh_host_%s_key.pub), then add the key (`ssh-keyscan -p %u -t %s %s "
                     ">> %s`, or log in once with ssh), or opt in to accepting new host keys",
                     name, type->name, fp, s->known_hosts, type->keyscan, s->options.port,
                     type->keyscan, s->host, s->known_hosts);
    }
  } else {
    st = tqh__ssh_error(s, 0, "checking the host key against %s", s->known_hosts);
  }
  libssh2_knownhost_free(kh);
  return st;
}
