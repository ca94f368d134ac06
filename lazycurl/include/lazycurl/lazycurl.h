/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libcurl, loaded on first use. Debian's libcurl brings about 30 shared
 * libraries with it, 6-9 ms of start-up in every process that maps them, so
 * CNI calls never use it (pwhttp does their HTTP); what is left is pwetcd's
 * watch stream (podwire-node, a daemon), which calls lazycurl_get() when it
 * starts watching. The package depends on libcurl4 explicitly, since no
 * binary names it in DT_NEEDED.
 */
#pragma once

#include <curl/curl.h>

struct lazycurl {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *h, CURLoption opt, ...);
	CURLcode (*easy_perform)(CURL *h);
	CURLcode (*easy_getinfo)(CURL *h, CURLINFO info, ...);
	void (*easy_cleanup)(CURL *h);
	const char *(*easy_strerror)(CURLcode rc);
	struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
	void (*slist_free_all)(struct curl_slist *l);
};

/*
 * libcurl.so.4, loaded and curl_global_init()ed once per process. NULL when
 * it cannot be loaded; then *why (if not NULL) says why (dlerror's text).
 */
const struct lazycurl *lazycurl_get(const char **why);
