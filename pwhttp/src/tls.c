/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TLS client connections on OpenSSL's libssl, loaded with dlopen on first
 * use: no DT_NEEDED, so a binary that links pwhttp but never talks TLS
 * starts as fast as one that does not link it (mapped, libssl cost an
 * http:// ADD ~1.6 ms of CPU: bench/pwhttp/run.sh --tls none). Always verifying, TLS 1.2
 * at least: the server's name or IP address against its certificate, and
 * its chain against the CA given (a file or PEM data), or, only when the
 * caller allows it and gives none (pwhttp_tls.system_ca: pwetcd without a
 * caFile), against the system's store (OpenSSL's default file and
 * directory, SSL_CERT_FILE and SSL_CERT_DIR when set), loaded when the
 * client is made or, with a saved session, when a chain must be verified.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "base/dl.h"
#include "base/file.h"
#include "base/sha512.h"
#include "internal.h"

/* Every libssl/libcrypto function used, typed from OpenSSL's own prototypes. */
#define SSL_FUNCS(X)                                                                               \
	X(OPENSSL_init_ssl)                                                                        \
	X(TLS_client_method)                                                                       \
	X(SSL_CTX_new)                                                                             \
	X(SSL_CTX_free)                                                                            \
	X(SSL_CTX_ctrl)                                                                            \
	X(SSL_CTX_set_verify)                                                                      \
	X(SSL_CTX_get_cert_store)                                                                  \
	X(SSL_CTX_set_default_verify_paths)                                                        \
	X(SSL_CTX_use_certificate)                                                                 \
	X(SSL_CTX_use_PrivateKey)                                                                  \
	X(SSL_CTX_check_private_key)                                                               \
	X(SSL_new)                                                                                 \
	X(SSL_free)                                                                                \
	X(SSL_ctrl)                                                                                \
	X(SSL_set_fd)                                                                              \
	X(SSL_get0_param)                                                                          \
	X(SSL_connect)                                                                             \
	X(SSL_read)                                                                                \
	X(SSL_write)                                                                               \
	X(SSL_shutdown)                                                                            \
	X(SSL_get_error)                                                                           \
	X(SSL_get_verify_result)                                                                   \
	X(SSL_CTX_sess_set_new_cb)                                                                 \
	X(SSL_set_ex_data)                                                                         \
	X(SSL_get_ex_data)                                                                         \
	X(SSL_set_session)                                                                         \
	X(SSL_SESSION_free)                                                                        \
	X(d2i_SSL_SESSION)                                                                         \
	X(i2d_SSL_SESSION)                                                                         \
	X(X509_VERIFY_PARAM_set1_host)                                                             \
	X(X509_VERIFY_PARAM_set1_ip_asc)                                                           \
	X(X509_verify_cert_error_string)                                                           \
	X(X509_STORE_add_cert)                                                                     \
	X(X509_STORE_CTX_set_error)                                                                \
	X(X509_verify_cert)                                                                        \
	X(SSL_CTX_set_cert_verify_callback)                                                        \
	X(SSL_CTX_set_cert_cb)                                                                     \
	X(SSL_use_certificate)                                                                     \
	X(SSL_use_PrivateKey)                                                                      \
	X(SSL_check_private_key)                                                                   \
	X(X509_free)                                                                               \
	X(EVP_PKEY_free)                                                                           \
	X(BIO_new_mem_buf)                                                                         \
	X(BIO_free)                                                                                \
	X(PEM_read_bio_X509)                                                                       \
	X(PEM_read_bio_PrivateKey)                                                                 \
	X(ERR_get_error)                                                                           \
	X(ERR_peek_last_error)                                                                     \
	X(ERR_clear_error)                                                                         \
	X(ERR_error_string_n)

static struct {
#define FIELD(name) __typeof__(name) *name;
	SSL_FUNCS(FIELD)
#undef FIELD
} ssl;

/* A session file starts with this much of the SHA-512 of what it was saved for. */
#define SESSION_KEY_LEN 32

/* A PEM buffer: the CA, the client certificate (with its chain) or key, read once. */
struct pem {
	char *d; /* NULL: none */
	size_t len;
};

/* A session file's content: the key it was saved for, the DER session. */
struct saved_session {
	unsigned char key[SESSION_KEY_LEN];
	unsigned char *der; /* NULL: none */
	size_t len;
};

struct pwhttp_tls_ctx {
	SSL_CTX *ctx;
	char *session_file;		    /* NULL: no resumption across processes */
	unsigned char key[SESSION_KEY_LEN]; /* what a saved session must have been saved for */
	struct pem ca;			    /* NULL d: the system's store (system_ca) */
	bool ca_pending;		    /* not loaded yet: verify_deferred() will */
	const char *ca_why;		    /* loading it (deferred) failed: why */
	struct pem cert, client_key;	    /* the client's, if any */
	const char *client_why;		    /* loading them (deferred) failed: why */
};

struct pwhttp_tls_conn {
	SSL *ssl;
	char error[256]; /* why the last read or write failed with -EPROTO */
	const struct pwhttp_tls_ctx *ctx;
	SSL_SESSION *fresh; /* the newest session the server gave (a ticket) */
};

#define SESSION_MAX (16u << 10)
#define PEM_MAX (1u << 20)
#define SESSION_PEER_TAG 0xa3 /* [3] EXPLICIT Certificate OPTIONAL in OpenSSL's session */

static char err_text[256];

static const char *ssl_load(void)
{
	static const char *const sonames[] = {"libssl.so.3", NULL};
	static const struct dl_sym syms[] = {
#define SYM(name) DL_SYM(#name, ssl.name),
	    SSL_FUNCS(SYM)
#undef SYM
	};
	static char load_why[256];
	static bool tried;
	static const char *why;

	if (tried)
		return why;
	tried = true;
	if (!dl_load(sonames, syms, sizeof(syms) / sizeof(syms[0]), load_why, sizeof(load_why)))
		return why = load_why;
	/*
	 * openssl.cnf is not read: the policy is ours, as a Go client's
	 * (Multus, kubelet) is crypto/tls's. Nor is the legacy by-name table of
	 * every cipher built (libssl fetches the ciphers it uses from the
	 * provider; the only other user is the old encrypted-PEM key format,
	 * which kubeconfig has no way to give a passphrase for; the digests'
	 * table stays: certificate verification looks the signature's digest
	 * up in it), nor an exit handler registered that would free it all
	 * again just before the process ends. Together ~0.8 ms of CPU per
	 * https ADD (bench/pwhttp/run.sh).
	 */
	if (ssl.OPENSSL_init_ssl(OPENSSL_INIT_NO_LOAD_CONFIG | OPENSSL_INIT_NO_ADD_ALL_CIPHERS |
				     OPENSSL_INIT_NO_ATEXIT,
				 NULL) != 1)
		return why = "OpenSSL cannot be initialised";
	return NULL;
}

/* The OpenSSL error queue's last entry, as text (or what). */
static const char *ssl_error(const char *what)
{
	unsigned long e = ssl.ERR_peek_last_error();
	char buf[200];

	if (!e) {
		snprintf(err_text, sizeof(err_text), "%s", what);
	} else {
		ssl.ERR_error_string_n(e, buf, sizeof(buf));
		snprintf(err_text, sizeof(err_text), "%s: %s", what, buf);
	}
	ssl.ERR_clear_error();
	return err_text;
}

static BIO *mem_bio(const char *data, size_t len)
{
	return ssl.BIO_new_mem_buf(data, len > 0x7fffffff ? -1 : (int)len);
}

/* Every certificate of a PEM buffer into the context's trust store. */
static int add_ca_data(SSL_CTX *ctx, const char *data, size_t len)
{
	X509_STORE *store = ssl.SSL_CTX_get_cert_store(ctx);
	BIO *bio = mem_bio(data, len);
	X509 *x;
	int n = 0;

	if (!bio)
		return -ENOMEM;
	while ((x = ssl.PEM_read_bio_X509(bio, NULL, NULL, NULL))) {
		if (ssl.X509_STORE_add_cert(store, x) == 1)
			n++;
		ssl.X509_free(x);
	}
	ssl.BIO_free(bio);
	ssl.ERR_clear_error(); /* the end of the buffer reads as an error */
	return n > 0 ? 0 : -EKEYREJECTED;
}

/* Where a client certificate goes: the context (at once) or one connection (deferred). */
struct cert_target {
	SSL_CTX *ctx;
	SSL *ssl;
};

static bool target_use_cert(const struct cert_target *t, X509 *x)
{
	return (t->ssl ? ssl.SSL_use_certificate(t->ssl, x)
		       : ssl.SSL_CTX_use_certificate(t->ctx, x)) == 1;
}

/* One more certificate of the chain; takes x. */
static bool target_add_chain(const struct cert_target *t, X509 *x)
{
	return (t->ssl ? ssl.SSL_ctrl(t->ssl, SSL_CTRL_CHAIN_CERT, 0, x)
		       : ssl.SSL_CTX_ctrl(t->ctx, SSL_CTRL_EXTRA_CHAIN_CERT, 0, x)) == 1;
}

static bool target_use_key(const struct cert_target *t, EVP_PKEY *k)
{
	return (t->ssl ? ssl.SSL_use_PrivateKey(t->ssl, k)
		       : ssl.SSL_CTX_use_PrivateKey(t->ctx, k)) == 1;
}

/* Client certificate (then its chain) and key from PEM buffers. */
static int use_cert_data(const struct cert_target *t, const char *cert, size_t cert_len,
			 const char *key_pem, size_t key_len)
{
	BIO *bio = mem_bio(cert, cert_len);
	X509 *x = bio ? ssl.PEM_read_bio_X509(bio, NULL, NULL, NULL) : NULL;
	EVP_PKEY *key = NULL;
	int r = x && target_use_cert(t, x) ? 0 : -EKEYREJECTED;

	if (x)
		ssl.X509_free(x);
	while (r == 0 && (x = ssl.PEM_read_bio_X509(bio, NULL, NULL, NULL)))
		if (!target_add_chain(t, x)) {
			ssl.X509_free(x);
			r = -EKEYREJECTED;
		}
	if (bio)
		ssl.BIO_free(bio);
	ssl.ERR_clear_error();
	bio = r == 0 ? mem_bio(key_pem, key_len) : NULL;
	key = bio ? ssl.PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL) : NULL;
	if (r == 0 && (!key || !target_use_key(t, key)))
		r = -EKEYREJECTED;
	if (key)
		ssl.EVP_PKEY_free(key);
	if (bio)
		ssl.BIO_free(bio);
	return r;
}

/* The trust anchors into the context: the CA read, or (none) the system's store. */
static int load_ca(struct pwhttp_tls_ctx *c, const char **why)
{
	if (!c->ca.d) {
		if (ssl.SSL_CTX_set_default_verify_paths(c->ctx) != 1) {
			*why = ssl_error("the system's CA certificates cannot be loaded");
			return -EKEYREJECTED;
		}
	} else if (add_ca_data(c->ctx, c->ca.d, c->ca.len) < 0) {
		*why = ssl_error("no usable CA certificate");
		return -EKEYREJECTED;
	}
	return 0;
}

/* The client certificate and key onto t (the context, or one connection). 0 or -EKEYREJECTED. */
static int use_client(const struct cert_target *t, const struct pwhttp_tls_ctx *c, const char **why)
{
	if (use_cert_data(t, c->cert.d, c->cert.len, c->client_key.d, c->client_key.len) < 0) {
		*why = ssl_error("client certificate or key unusable");
		return -EKEYREJECTED;
	}
	if ((t->ssl ? ssl.SSL_check_private_key(t->ssl) : ssl.SSL_CTX_check_private_key(t->ctx)) !=
	    1) {
		*why = ssl_error("client key does not match its certificate");
		return -EKEYREJECTED;
	}
	return 0;
}

static char *dup_mem(const char *p, size_t n)
{
	char *d = malloc(n ? n : 1);

	if (d)
		memcpy(d, p, n);
	return d;
}

/* One PEM, given as data or read from its file (a link is followed: secrets often are). */
static int pem_read(const char *data, size_t len, const char *file, struct pem *out)
{
	int fd, n;

	if (data) {
		out->len = len;
		return (out->d = dup_mem(data, len)) ? 0 : -ENOMEM;
	}
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = fd_read_all(fd, PEM_MAX, &out->d);
	close(fd);
	if (n < 0)
		return n;
	out->len = (size_t)n;
	return 0;
}

/* A PEM that cannot be read: -EKEYREJECTED saying what and why (-ENOMEM as it is). */
static int unreadable(int r, const char *what, const char **why)
{
	if (r == -ENOMEM)
		return r;
	snprintf(err_text, sizeof(err_text), "%s: %s", what, strerror(-r));
	*why = err_text;
	return -EKEYREJECTED;
}

/*
 * The CA (data, else its file; neither: the system's store if allowed) and
 * the client certificate and key (as data, else as files), read into c.
 */
static int read_material(struct pwhttp_tls_ctx *c, const struct pwhttp_tls *m, const char **why)
{
	bool data = m->cert_data && m->key_data;
	int r = 0;

	if (!m->ca_data && !m->ca_file && !m->system_ca) {
		*why = "no usable CA certificate";
		return -EKEYREJECTED;
	}
	if (m->ca_data || m->ca_file)
		r = pem_read(m->ca_data, m->ca_len, m->ca_file, &c->ca);
	if (r < 0)
		return unreadable(r, "no usable CA certificate", why);
	if (!data && !(m->cert_file && m->key_file))
		return 0;
	r = pem_read(data ? m->cert_data : NULL, m->cert_len, m->cert_file, &c->cert);
	if (r == 0)
		r = pem_read(data ? m->key_data : NULL, m->key_len, m->key_file, &c->client_key);
	return r < 0 ? unreadable(r, "client certificate or key unusable", why) : 0;
}

/* ---- sessions kept across processes (struct pwhttp_tls.session_file) ---- */

/* What a session key is computed from: pieces, each after its length. */
struct keybuf {
	unsigned char *d;
	size_t len, cap;
	bool oom;
};

static void kput(struct keybuf *k, const void *p, size_t n)
{
	uint64_t len = n;

	if (k->len + sizeof(len) + n > k->cap && !k->oom) {
		size_t cap = (k->len + sizeof(len) + n) * 2;
		unsigned char *d = realloc(k->d, cap);

		k->oom = !d;
		k->d = d ? d : k->d;
		k->cap = d ? cap : k->cap;
	}
	if (k->oom)
		return;
	memcpy(k->d + k->len, &len, sizeof(len));
	if (n)
		memcpy(k->d + k->len + sizeof(len), p, n);
	k->len += sizeof(len) + n;
}

/*
 * What a saved session was made with, as the file's key: the host, and the
 * bytes of the CA (none: the system's store) and of the client certificate
 * and key. A session that a client certificate authenticated is thus
 * offered only by a process that read the same certificate and key (file
 * names and identities could be had without reading the key).
 */
static int session_key(struct pwhttp_tls_ctx *c, const char *host)
{
	struct keybuf k = {0};
	uint8_t digest[SHA512_DIGEST_SIZE];

	kput(&k, host, strlen(host));
	kput(&k, c->ca.d, c->ca.len);
	kput(&k, c->cert.d, c->cert.len);
	kput(&k, c->client_key.d, c->client_key.len);
	if (!k.oom)
		sha512(k.d, k.len, digest);
	if (k.d)
		explicit_bzero(k.d, k.len); /* a copy of the client key */
	free(k.d);
	memcpy(c->key, digest, sizeof(c->key));
	return k.oom ? -ENOMEM : 0;
}

/* OpenSSL hands every new session (a TLS 1.3 ticket, a 1.2 one) here: keep the newest. */
static int on_new_session(SSL *s, SSL_SESSION *sess)
{
	struct pwhttp_tls_conn *t = ssl.SSL_get_ex_data(s, 0);

	if (!t)
		return 0;
	if (t->fresh)
		ssl.SSL_SESSION_free(t->fresh);
	t->fresh = sess;
	return 1; /* ours now */
}

/*
 * The session file (the key, then the DER session) into ret: true when it
 * holds something past the key. Anything unusable means a full handshake,
 * as without a file.
 */
static bool session_load(const char *file, struct saved_session *ret)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	size_t size;
	bool ok = false;

	memset(ret, 0, sizeof(*ret));
	if (fd < 0)
		return false;
	if (fstat(fd, &st) == 0 && st.st_size > (off_t)sizeof(ret->key) &&
	    st.st_size <= (off_t)SESSION_MAX) {
		size = (size_t)st.st_size;
		ret->der = malloc(size);
		ok = ret->der && read(fd, ret->der, size) == (ssize_t)size;
	}
	close(fd);
	if (!ok) {
		free(ret->der);
		ret->der = NULL;
		return false;
	}
	memcpy(ret->key, ret->der, sizeof(ret->key));
	memmove(ret->der, ret->der + sizeof(ret->key), size - sizeof(ret->key));
	ret->len = size - sizeof(ret->key);
	return true;
}

static void saved_session_done(struct saved_session *s)
{
	free(s->der);
	memset(s, 0, sizeof(*s));
}

/*
 * The saved session, offered in the handshake when it was saved for this
 * context's key (the file as it is now: a close may have saved a newer one).
 */
static void session_offer(struct pwhttp_tls_conn *t, struct pwhttp_tls_ctx *ctx)
{
	struct saved_session saved;
	SSL_SESSION *sess = NULL;
	const unsigned char *p;

	if (!session_load(ctx->session_file, &saved))
		return;
	p = saved.der;
	if (memcmp(saved.key, ctx->key, sizeof(ctx->key)) == 0)
		sess = ssl.d2i_SSL_SESSION(NULL, &p, (long)saved.len);
	if (sess) {
		(void)ssl.SSL_set_session(t->ssl, sess); /* refused: a full handshake */
		ssl.SSL_SESSION_free(sess);
	}
	saved_session_done(&saved);
	ssl.ERR_clear_error();
}

/* buf into the session file, replaced (0600); its directory made (0700) when missing. */
static void session_write(const char *file, const unsigned char *buf, size_t len)
{
	char *dir = strdup(file), *slash = dir ? strrchr(dir, '/') : NULL;
	int dfd = AT_FDCWD;

	if (slash) {
		*slash = '\0';
		(void)mkdir(dir[0] ? dir : "/", 0700);
		dfd = open(dir[0] ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (dir && dfd != -1)
		(void)file_replace_at(dfd, slash ? slash + 1 : file, buf, len, 0600, false);
	if (dfd >= 0)
		close(dfd);
	free(dir);
}

/*
 * The newest session into the file (key, DER; no fsync: a cache), without
 * the server's certificate: OpenSSL keeps it in the session (field [3],
 * optional), and decoding it again costs the next process ~0.5 ms of
 * OpenSSL 3.0's key decoders (bench/pwhttp/run.sh) for a certificate that
 * a resumed handshake never looks at (verified when the session was made).
 */
static void session_save(const struct pwhttp_tls_conn *t)
{
	int len = ssl.i2d_SSL_SESSION(t->fresh, NULL);
	size_t total = sizeof(t->ctx->key) + (size_t)(len > 0 ? len : 0), stripped;
	unsigned char *buf = NULL, *p;

	if (len <= 0 || total > SESSION_MAX || !(buf = malloc(total)))
		goto out;
	memcpy(buf, t->ctx->key, sizeof(t->ctx->key));
	p = buf + sizeof(t->ctx->key);
	if (ssl.i2d_SSL_SESSION(t->fresh, &p) != len)
		goto out;
	stripped = pwhttp_der_drop_child(buf + sizeof(t->ctx->key), (size_t)len, SESSION_PEER_TAG);
	if (stripped > 0)
		total = sizeof(t->ctx->key) + stripped;
	session_write(t->ctx->session_file, buf, total);
out:
	free(buf);
	ssl.ERR_clear_error();
}

/*
 * Certificate verification with the CA deferred: the first chain to verify
 * (a full handshake) loads it into the context's store, then OpenSSL's own
 * verification runs as it would have without this callback. A CA that
 * fails to load fails the verification (pwhttp_tls_connect says why).
 */
static int verify_deferred(X509_STORE_CTX *xs, void *arg)
{
	struct pwhttp_tls_ctx *c = arg;

	if (c->ca_pending) {
		c->ca_pending = false;
		(void)load_ca(c, &c->ca_why);
	}
	if (c->ca_why) {
		ssl.X509_STORE_CTX_set_error(xs, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY);
		return 0;
	}
	return ssl.X509_verify_cert(xs);
}

/*
 * The server asked for a client certificate (a full handshake, the saved
 * session refused): the certificate, its chain and key onto this
 * connection. 1, or 0 to fail the handshake (pwhttp_tls_connect says why).
 */
static int client_cert_deferred(SSL *s, void *arg)
{
	struct pwhttp_tls_ctx *c = arg;

	c->client_why = NULL;
	return use_client(&(struct cert_target){.ssl = s}, c, &c->client_why) == 0;
}

/*
 * The material now, or (a session saved for this very material and host)
 * each piece when the handshake needs it: the CA for a chain to verify, the
 * client certificate and key (read, not parsed: ~1.1 ms of an RSA key's
 * parsing saved, bench/pwhttp/run.sh) for a server that asks.
 */
static int trust(struct pwhttp_tls_ctx *c, const char **why)
{
	struct saved_session saved = {0};
	bool match = c->session_file && session_load(c->session_file, &saved) &&
		     memcmp(saved.key, c->key, sizeof(c->key)) == 0;
	int r;

	saved_session_done(&saved);
	if (match) {
		/* the CA parsed only for a chain to verify: ~0.6 ms, bench/pwhttp/run.sh */
		c->ca_pending = true;
		ssl.SSL_CTX_set_cert_verify_callback(c->ctx, verify_deferred, c);
		if (c->cert.d)
			ssl.SSL_CTX_set_cert_cb(c->ctx, client_cert_deferred, c);
		return 0;
	}
	r = load_ca(c, why);
	if (r < 0 || !c->cert.d)
		return r;
	return use_client(&(struct cert_target){.ctx = c->ctx}, c, why);
}

int pwhttp_tls_ctx_new(const struct pwhttp_tls *m, const char *host, struct pwhttp_tls_ctx **ret,
		       const char **why)
{
	struct pwhttp_tls_ctx *c;
	const char *load_why = ssl_load();
	int r;

	if (load_why) {
		*why = load_why;
		return -ELIBACC;
	}
	c = calloc(1, sizeof(*c));
	if (!c || !(c->ctx = ssl.SSL_CTX_new(ssl.TLS_client_method()))) {
		free(c);
		*why = "out of memory";
		return -ENOMEM;
	}
	ssl.SSL_CTX_set_verify(c->ctx, SSL_VERIFY_PEER, NULL);
	ssl.SSL_CTX_ctrl(c->ctx, SSL_CTRL_SET_MIN_PROTO_VERSION, TLS1_2_VERSION, NULL);
	r = read_material(c, m, why);
	if (r == 0 && m->session_file) {
		if (!(c->session_file = strdup(m->session_file)))
			r = -ENOMEM;
		if (r == 0)
			r = session_key(c, host);
		ssl.SSL_CTX_ctrl(c->ctx, SSL_CTRL_SET_SESS_CACHE_MODE,
				 SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE, NULL);
		ssl.SSL_CTX_sess_set_new_cb(c->ctx, on_new_session);
	}
	if (r == 0)
		r = trust(c, why);
	if (r == -ENOMEM)
		*why = "out of memory";
	if (r < 0) {
		pwhttp_tls_ctx_free(c);
		return r;
	}
	*ret = c;
	return 0;
}

void pwhttp_tls_ctx_free(struct pwhttp_tls_ctx *c)
{
	if (!c)
		return;
	ssl.SSL_CTX_free(c->ctx);
	free(c->session_file);
	free(c->ca.d);
	free(c->cert.d);
	if (c->client_key.d)
		explicit_bzero(c->client_key.d, c->client_key.len);
	free(c->client_key.d);
	free(c);
}

/*
 * OpenSSL writes to the socket with write(2): a peer that has closed the
 * connection would raise SIGPIPE and kill the plugin. Every SSL_* call that
 * may write runs with SIGPIPE blocked, and a SIGPIPE it raised is dropped.
 */
struct pipe_guard {
	sigset_t old;
	bool was_pending;
};

static void pipe_block(struct pipe_guard *g)
{
	sigset_t set, pending;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	g->was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
	sigprocmask(SIG_BLOCK, &set, &g->old);
}

static void pipe_restore(struct pipe_guard *g)
{
	const struct timespec zero = {0, 0};
	sigset_t set, pending;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	if (!g->was_pending && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE))
		(void)sigtimedwait(&set, NULL, &zero);
	sigprocmask(SIG_SETMASK, &g->old, NULL);
}

/*
 * After a failed SSL_* call: wait for what it wants and return 0 to retry,
 * or the error (-ETIMEDOUT, -ECONNRESET for EOF or a reset, -EPROTO).
 */
static int ssl_wait(SSL *s, int fd, int rc, uint64_t deadline)
{
	int e = ssl.SSL_get_error(s, rc);

	if (e == SSL_ERROR_WANT_READ)
		return pwhttp_wait_fd(fd, POLLIN, deadline);
	if (e == SSL_ERROR_WANT_WRITE)
		return pwhttp_wait_fd(fd, POLLOUT, deadline);
	if (e == SSL_ERROR_ZERO_RETURN || e == SSL_ERROR_SYSCALL)
		return -ECONNRESET;
	return -EPROTO;
}

static int set_peer_name(SSL *s, const char *host)
{
	X509_VERIFY_PARAM *vp = ssl.SSL_get0_param(s);
	unsigned char ip[16];
	bool literal = inet_pton(AF_INET, host, ip) == 1 || inet_pton(AF_INET6, host, ip) == 1;

	if (literal)
		return ssl.X509_VERIFY_PARAM_set1_ip_asc(vp, host) == 1 ? 0 : -EINVAL;
	if (ssl.SSL_ctrl(s, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
			 (void *)host) != 1)
		return -EINVAL;
	return ssl.X509_VERIFY_PARAM_set1_host(vp, host, 0) == 1 ? 0 : -EINVAL;
}

static const char *handshake_error(SSL *s)
{
	long v = ssl.SSL_get_verify_result(s);

	if (v != X509_V_OK) {
		snprintf(err_text, sizeof(err_text), "certificate verify failed: %s",
			 ssl.X509_verify_cert_error_string(v));
		ssl.ERR_clear_error();
		return err_text;
	}
	return ssl_error("TLS handshake failed");
}

int pwhttp_tls_connect(struct pwhttp_tls_ctx *ctx, int fd, const char *host, uint64_t deadline,
		       struct pwhttp_tls_conn **ret, const char **why)
{
	struct pwhttp_tls_conn *t = calloc(1, sizeof(*t));
	int rc, r = 0;

	if (!t || !(t->ssl = ssl.SSL_new(ctx->ctx))) {
		free(t);
		*why = "out of memory";
		return -ENOMEM;
	}
	t->ctx = ctx;
	if (ssl.SSL_set_fd(t->ssl, fd) != 1 || set_peer_name(t->ssl, host) < 0 ||
	    ssl.SSL_set_ex_data(t->ssl, 0, t) != 1) {
		*why = ssl_error("cannot set up the TLS connection");
		pwhttp_tls_conn_free(t);
		return -EPROTO;
	}
	ssl.ERR_clear_error();
	if (ctx->session_file)
		session_offer(t, ctx);
	for (;;) {
		struct pipe_guard g;

		pipe_block(&g);
		rc = ssl.SSL_connect(t->ssl);
		pipe_restore(&g);
		if (rc == 1 || (r = ssl_wait(t->ssl, fd, rc, deadline)) < 0)
			break;
	}
	if (rc != 1) {
		*why = r == -ETIMEDOUT	  ? "TLS handshake timed out"
		       : r == -ECONNRESET ? "connection closed during the TLS handshake"
		       : ctx->ca_why	  ? ctx->ca_why
		       : ctx->client_why  ? ctx->client_why
					  : handshake_error(t->ssl);
		ssl.ERR_clear_error();
		pwhttp_tls_conn_free(t);
		return r;
	}
	*ret = t;
	return 0;
}

/* A failed read or write: -EPROTO keeps OpenSSL's reason (an alert, say). */
static long io_error(struct pwhttp_tls_conn *t, int r, const char *what)
{
	if (r == -EPROTO)
		snprintf(t->error, sizeof(t->error), "%s", ssl_error(what));
	return r;
}

const char *pwhttp_tls_conn_error(const struct pwhttp_tls_conn *t)
{
	return t->error[0] ? t->error : "TLS error";
}

void pwhttp_tls_conn_free(struct pwhttp_tls_conn *t)
{
	if (!t)
		return;
	if (t->fresh)
		session_save(t); /* the newest session, after every connection that got one */
	if (t->fresh)
		ssl.SSL_SESSION_free(t->fresh);
	if (t->ssl) {
		struct pipe_guard g;

		pipe_block(&g);
		(void)ssl.SSL_shutdown(t->ssl); /* one close_notify, never waited for */
		pipe_restore(&g);
		ssl.SSL_free(t->ssl);
	}
	free(t);
}

long pwhttp_tls_read(struct pwhttp_tls_conn *t, int fd, char *buf, size_t cap, uint64_t deadline)
{
	int n = cap > 0x7fffffff ? 0x7fffffff : (int)cap, rc, r;

	for (;;) {
		struct pipe_guard g;

		ssl.ERR_clear_error();
		pipe_block(&g); /* a read may write too (alerts, key updates) */
		rc = ssl.SSL_read(t->ssl, buf, n);
		pipe_restore(&g);
		if (rc > 0)
			return rc;
		if (ssl.SSL_get_error(t->ssl, rc) == SSL_ERROR_ZERO_RETURN)
			return 0; /* close_notify: EOF */
		r = ssl_wait(t->ssl, fd, rc, deadline);
		if (r == -ECONNRESET)
			return 0; /* EOF without close_notify: the response reader decides */
		if (r < 0)
			return io_error(t, r, "TLS read");
	}
}

long pwhttp_tls_write(struct pwhttp_tls_conn *t, int fd, const char *p, size_t n, uint64_t deadline)
{
	int len = n > 0x7fffffff ? 0x7fffffff : (int)n, rc, r;

	for (;;) {
		struct pipe_guard g;

		ssl.ERR_clear_error();
		pipe_block(&g);
		rc = ssl.SSL_write(t->ssl, p, len);
		pipe_restore(&g);
		if (rc > 0)
			return rc;
		r = ssl_wait(t->ssl, fd, rc, deadline);
		if (r < 0)
			return r == -ECONNRESET ? -EPIPE : io_error(t, r, "TLS write");
	}
}
