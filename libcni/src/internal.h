/* SPDX-License-Identifier: Apache-2.0 */
/* libcni's private cross-file declarations. */
#pragma once

#include <stddef.h>
