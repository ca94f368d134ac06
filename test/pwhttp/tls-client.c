/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test driver for tls-test.sh: pwhttp over TLS against tls-server.py.
 * `tls-client PORT CA GET [SESSION_FILE [CERT KEY]]`: one GET, prints "status body".
 * `tls-client PORT CA RESET`: a request, then a 1 MiB POST into the reset
 * connection: must fail with an error, never die of SIGPIPE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pwhttp/http.h"

#define BIG (1u << 20)

static int run(struct pwhttp_client *c, size_t len)
{
	static char body[BIG];
	struct pwhttp_request rq = {.method = len ? "POST" : "GET",
				    .path = "/",
				    .body = len ? body : NULL,
				    .body_len = len};
	struct pwhttp_response resp;
	int r = pwhttp_request(c, &rq, pwhttp_now_ms() + 3000, &resp);

	if (r < 0) {
		printf("error %d %s\n", r, pwhttp_client_error(c));
		return r;
	}
	printf("%ld %s\n", resp.status, resp.body);
	free(resp.body);
	return 0;
}

int main(int argc, char **argv)
{
	char url[64];
	struct pwhttp_tls tls = {.ca_file = argc > 2 ? argv[2] : NULL,
				 .session_file = argc > 4 ? argv[4] : NULL,
				 .cert_file = argc > 6 ? argv[5] : NULL,
				 .key_file = argc > 6 ? argv[6] : NULL};
	struct pwhttp_target t = {.url = url, .tls = &tls};
	struct pwhttp_client *c;
	const char *why = NULL;
	int r;

	if (argc != 4 && argc != 5 && argc != 7)
		return 2;
	snprintf(url, sizeof(url), "https://127.0.0.1:%s", argv[1]);
	if ((r = pwhttp_client_new(&t, &c, &why)) < 0) {
		printf("new %d %s\n", r, why);
		return 1;
	}
	r = run(c, 0);
	if (strcmp(argv[3], "RESET") == 0) {
		usleep(100000);
		r = run(c, BIG);
		r = r < 0 ? 0 : 1; /* the POST must fail, and we must be alive to say so */
	}
	pwhttp_client_free(c);
	return r < 0 ? 1 : r;
}
