/* SPDX-License-Identifier: Apache-2.0 */
/* libcurl through dlopen, on first use. */
#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>

#include "lazycurl/lazycurl.h"

static struct lazycurl api;
static bool tried, loaded;
static const char *load_error;

#define LOAD(field, name)                                                                          \
	do {                                                                                       \
		*(void **)&api.field = dlsym(h, name);                                             \
		if (!api.field)                                                                    \
			return false;                                                              \
	} while (0)

static bool load_syms(void *h)
{
	LOAD(global_init, "curl_global_init");
	LOAD(easy_init, "curl_easy_init");
	LOAD(easy_setopt, "curl_easy_setopt");
	LOAD(easy_perform, "curl_easy_perform");
	LOAD(easy_getinfo, "curl_easy_getinfo");
	LOAD(easy_cleanup, "curl_easy_cleanup");
	LOAD(easy_strerror, "curl_easy_strerror");
	LOAD(slist_append, "curl_slist_append");
	LOAD(slist_free_all, "curl_slist_free_all");
	return true;
}

const struct lazycurl *lazycurl_get(const char **why)
{
	if (!tried) {
		void *h = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);

		tried = true;
		if (!h)
			load_error = dlerror();
		else if (!load_syms(h))
			load_error = "libcurl.so.4 lacks a curl_easy_* symbol";
		else if (api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
			load_error = "curl_global_init failed";
		else
			loaded = true;
	}
	if (!loaded && why)
		*why = load_error ? load_error : "libcurl could not be loaded";
	return loaded ? &api : NULL;
}
