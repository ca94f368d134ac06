/* SPDX-License-Identifier: Apache-2.0 */
#include <dlfcn.h>
#include <stdio.h>

#include "base/dl.h"

static void *open_first(const char *const *sonames, const char **ret_name, char *why,
			size_t why_len)
{
	for (size_t i = 0; sonames[i]; i++) {
		void *h = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);

		if (h) {
			*ret_name = sonames[i];
			return h;
		}
		snprintf(why, why_len, "%s", dlerror());
	}
	return NULL;
}

void *dl_load(const char *const *sonames, const struct dl_sym *syms, size_t n, char *why,
	      size_t why_len)
{
	const char *name = NULL;
	void *h;

	snprintf(why, why_len, "no library to load");
	h = open_first(sonames, &name, why, why_len);
	if (!h)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		*syms[i].addr = dlsym(h, syms[i].name);
		if (!*syms[i].addr) {
			snprintf(why, why_len, "%s lacks %s", name, syms[i].name);
			dlclose(h);
			return NULL;
		}
	}
	why[0] = '\0';
	return h;
}
