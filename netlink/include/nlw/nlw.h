/* SPDX-License-Identifier: Apache-2.0 */
/* Umbrella header of the netlink module; see netlink/README.md. */
#pragma once

#include "nlw/addr.h"
#include "nlw/batch.h"
#include "nlw/link.h"
#include "nlw/neigh.h"
#include "nlw/netconf.h"
#include "nlw/netns.h"
#include "nlw/rdma.h"
#include "nlw/route.h"
#include "nlw/sock.h"
#include "nlw/sysctl.h"
#include "nlw/types.h"
#include "nlw/vf.h"
