/* probe */
#include <linux/init.h>
#undef __init
#define __init __cold __latent_entropy __noinitretpoline
#undef __ref
#define __ref noinline
