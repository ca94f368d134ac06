/* SPDX-License-Identifier: Apache-2.0 */
/* libcurl through dlopen, on first use. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/dl.h"
#include "lazycurl/lazycurl.h"

static struct lazycurl api;
static bool tried, loaded;
static char load_error[256];

static const struct dl_sym syms[] = {
    DL_SYM("curl_global_init", api.global_init),
    DL_SYM("curl_easy_init", api.easy_init),
    DL_SYM("curl_easy_setopt", api.easy_setopt),
    DL_SYM("curl_easy_perform", api.easy_perform),
    DL_SYM("curl_easy_getinfo", api.easy_getinfo),
    DL_SYM("curl_easy_cleanup", api.easy_cleanup),
    DL_SYM("curl_easy_strerror", api.easy_strerror),
    DL_SYM("curl_slist_append", api.slist_append),
    DL_SYM("curl_slist_free_all", api.slist_free_all),
};

const struct lazycurl *lazycurl_get(const char **why)
{
	static const char *const sonames[] = {"libcurl.so.4", NULL};

	if (!tried) {
		tried = true;
		if (dl_load(sonames, syms, sizeof(syms) / sizeof(syms[0]), load_error,
			    sizeof(load_error)) &&
		    !(loaded = api.global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK))
			snprintf(load_error, sizeof(load_error), "curl_global_init failed");
	}
	if (!loaded && why)
		*why = load_error;
	return loaded ? &api : NULL;
}
