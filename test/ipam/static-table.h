/* SPDX-License-Identifier: Apache-2.0 */
/* static IPAM cases (reference static_test.go behaviour, restated). */
#pragma once

#include "ipam-table.h"

#define ST(ver, ipam, top)                                                                  \
	"{\"cniVersion\":\"" ver "\",\"name\":\"mynet\",\"type\":\"bridge\"" top ","         \
	"\"ipam\":{\"type\":\"static\"" ipam "}}"
#define ST_ADDRS                                                                            \
	",\"addresses\":[{\"address\":\"10.10.0.1/24\",\"gateway\":\"10.10.0.254\"},"        \
	"{\"address\":\"3ffe:ffff:0:01ff::1/64\",\"gateway\":\"3ffe:ffff:0::1\"}],"          \
	"\"routes\":[{\"dst\":\"0.0.0.0/0\"},{\"dst\":\"10.10.0.0/16\",\"gw\":\"10.10.0.1\"}]," \
	"\"dns\":{\"nameservers\":[\"8.8.8.8\"],\"domain\":\"example.com\",\"search\":"       \
	"[\"example.com\"]}"
#define ST_PREV(gw)                                                                         \
	",\"prevResult\":{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.10.0.1/24\","  \
	"\"gateway\":\"" gw "\"},{\"address\":\"3ffe:ffff:0:1ff::1/64\",\"gateway\":"        \
	"\"3ffe:ffff::1\"}]}"

static const struct ipam_case static_cases[] = {
	{ "addresses, routes and dns",
	  { { "ADD", "c1", "eth0", NULL, ST("1.0.0", ST_ADDRS, ""), 0,
	      { "{\"address\":\"10.10.0.1/24\",\"gateway\":\"10.10.0.254\"}",
		"{\"address\":\"3ffe:ffff:0:1ff::1/64\",\"gateway\":\"3ffe:ffff::1\"}",
		"{\"dst\":\"10.10.0.0/16\",\"gw\":\"10.10.0.1\"}",
		"\"dns\":{\"nameservers\":[\"8.8.8.8\"],\"domain\":\"example.com\"" } },
	    { "CHECK", "c1", "eth0", NULL, ST("1.0.0", ST_ADDRS, ST_PREV("10.10.0.254")), 0,
	      { NULL } },
	    { "CHECK", "c1", "eth0", NULL, ST("1.0.0", ST_ADDRS, ST_PREV("10.10.0.99")), 105,
	      { "static: gateway of 10.10.0.1/24 differs from prevResult" } },
	    { "CHECK", "c1", "eth0", NULL, ST("1.0.0", ST_ADDRS, ""), 7,
	      { "Required prevResult missing" } },
	    { "DEL", "c1", "eth0", NULL, ST("1.0.0", ST_ADDRS, ""), 0, { NULL } } } },
	{ "0.3.1 output",
	  { { "ADD", "c1", "eth0", NULL, ST("0.3.1", ST_ADDRS, ""), 0,
	      { "\"version\":\"4\",\"address\":\"10.10.0.1/24\"" } } } },
	{ "args.cni.ips replaces, runtimeConfig.ips replaces both",
	  { { "ADD", "c1", "eth0", NULL,
	      ST("1.0.0", ST_ADDRS, ",\"args\":{\"cni\":{\"ips\":[\"10.20.0.5/24\"]}}"), 0,
	      { "\"ips\":[{\"address\":\"10.20.0.5/24\"}]" } },
	    { "ADD", "c1", "eth0", NULL,
	      ST("1.0.0", ST_ADDRS,
		 ",\"args\":{\"cni\":{\"ips\":[\"10.20.0.5/24\"]}},\"runtimeConfig\":{\"ips\":"
		 "[\"10.30.0.5/24\"]}"),
	      0, { "\"ips\":[{\"address\":\"10.30.0.5/24\"}]" } },
	    { "ADD", "c1", "eth0", NULL,
	      ST("1.0.0", "", ",\"runtimeConfig\":{\"ips\":[\"10.30.0.5\"]}"), 7,
	      { "runtimeConfig.ips[0]: '10.30.0.5' is expected to be in CIDR notation" } } } },
	{ "CNI_ARGS IP appends, GATEWAY fills matching subnets",
	  { { "ADD", "c1", "eth0", "IP=10.40.0.5/24,fd00::5/64;GATEWAY=10.40.0.1,10.99.0.1",
	      ST("1.0.0", ",\"addresses\":[{\"address\":\"10.10.0.1/24\"}]", ""), 0,
	      { "\"ips\":[{\"address\":\"10.10.0.1/24\"},{\"address\":\"10.40.0.5/24\","
		"\"gateway\":\"10.40.0.1\"},{\"address\":\"fd00::5/64\"}]" } },
	    { "ADD", "c1", "eth0", "IP=10.40.0.5", ST("1.0.0", "", ""), 4,
	      { "CNI_ARGS IP: '10.40.0.5' is expected to be in CIDR notation" } },
	    { "ADD", "c1", "eth0", "GATEWAY=nope", ST("1.0.0", "", ""), 4,
	      { "CNI_ARGS GATEWAY: not an IP address: 'nope'" } },
	    { "ADD", "c1", "eth0", "FOO=1", ST("1.0.0", "", ""), 4, { "unknown args" } } } },
	{ "Multus: runtimeConfig.ips replaces CNI_ARGS IP; the same address twice is one",
	  { { "ADD", "c1", "eth0", "IgnoreUnknown=1;IP=10.5.0.7/24,fd05::7/64",
	      ST("1.0.0", "", ",\"runtimeConfig\":{\"ips\":[\"10.5.0.7/24\",\"fd05::7/64\"]}"), 0,
	      { "\"ips\":[{\"address\":\"10.5.0.7/24\"},{\"address\":\"fd05::7/64\"}]" } },
	    { "ADD", "c1", "eth0", "IgnoreUnknown=1;IP=10.5.0.8/24",
	      ST("1.0.0", "", ",\"runtimeConfig\":{\"ips\":[\"10.5.0.7/24\"]}"), 0,
	      { "\"ips\":[{\"address\":\"10.5.0.7/24\"}]" } },
	    { "ADD", "c1", "eth0", "IP=10.5.0.7/24",
	      ST("1.0.0", ",\"addresses\":[{\"address\":\"10.5.0.7/24\"}]", ""), 0,
	      { "\"ips\":[{\"address\":\"10.5.0.7/24\"}]" } } } },
	{ "errors name key and value",
	  { { "ADD", "c1", "eth0", NULL,
	      ST("1.0.0", ",\"addresses\":[{\"address\":\"10.10.0.1\"}]", ""), 7,
	      { "ipam.addresses[0].address: '10.10.0.1' is expected to be in CIDR notation" } },
	    { "ADD", "c1", "eth0", NULL,
	      ST("1.0.0", ",\"addresses\":[{\"address\":\"10.10.0.1/24\",\"gateway\":\"fd00::1\"}]",
		 ""),
	      7, { "ipam.addresses[0].gateway: 'fd00::1' is not of the address's family" } },
	    { "ADD", "c1", "eth0", NULL, ST("1.0.0", ",\"addresses\":{}", ""), 7,
	      { "ipam.addresses" } },
	    { "ADD", "c1", "eth0", NULL,
	      ST("0.2.0",
		 ",\"addresses\":[{\"address\":\"10.10.0.1/24\"},{\"address\":\"10.11.0.1/24\"}]",
		 ""),
	      7, { "CNI version 0.2.0 does not support more than 1 address per family" } },
	    { "ADD", "c1", "eth0", NULL,
	      "{\"cniVersion\":\"1.0.0\",\"name\":\"mynet\",\"type\":\"x\"}", 7,
	      { "IPAM config missing 'ipam' key" } } } },
};
