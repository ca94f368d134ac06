/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The node-local IPAM types a main plugin runs in-process, as entries of its
 * podnet_set_ipam_types() table: only a main.c includes this, and its
 * binary links ipam_host_local and ipam_static.
 *
 *	static const struct podnet_ipam_type ipam_types[] = {
 *		PODNET_IPAM_NODE_LOCAL,
 *		{ NULL, NULL },
 *	};
 */
#pragma once

#include "ipam/host-local.h"
#include "ipam/static.h"
#include "podnet/ipam.h"

#define PODNET_IPAM_NODE_LOCAL                                                                     \
	{"host-local", &ipam_host_local_ops},                                                      \
	{                                                                                          \
		"static", &ipam_static_ops                                                         \
	}
