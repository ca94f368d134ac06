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
 *
 * A plugin with no other in-process type calls podnet_main_node_local().
 */
#pragma once

#include "ipam/host-local.h"
#include "ipam/static.h"
#include "podnet/ipam.h"
#include "podnet/podnet.h"

#define PODNET_IPAM_NODE_LOCAL                                                                     \
	{"host-local", &ipam_host_local_ops},                                                      \
	{                                                                                          \
		"static", &ipam_static_ops                                                         \
	}

/* main() of a plugin whose in-process IPAM types are the node-local ones. */
static inline int podnet_main_node_local(const struct podnet_plugin_ops *ops, int argc, char **argv)
{
	static const struct podnet_ipam_type types[] = {
	    PODNET_IPAM_NODE_LOCAL,
	    {NULL, NULL},
	};

	podnet_set_ipam_types(types);
	return podnet_plugin_main(ops, argc, argv);
}
