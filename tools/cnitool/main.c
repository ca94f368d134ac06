/* SPDX-License-Identifier: Apache-2.0 */
#include "cnitool.h"

int main(int argc, char **argv)
{
	return cnitool_main(argc, argv);
}
