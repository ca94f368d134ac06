/* SPDX-License-Identifier: Apache-2.0 */
#include "inspect.h"

int main(int argc, char **argv)
{
	return pi_main(argc, argv);
}
