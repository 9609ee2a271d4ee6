// SPDX-License-Identifier: MIT
// What the loader and the CPU told the kernel, in words on every console,
// and the `boot` record on serial (kernel/bootinfo/bootrec.c writes it).
#include "kernel/bootinfo/bootinfo.h"

#include "kernel/bootinfo/bootrec.h"
#include "kernel/console/console.h"
#include "kernel/console/printk.h"
#include "kernel/cpu.h"
#include "mm/layout.h"

extern const char __kernel_phys_start[];

static void print_text(const struct bootinfo *bi, uint64_t load_addr)
{
    printk("loader: %s (%s)\n", bi->loader_name[0] ? bi->loader_name : "unnamed",
           bi_loader_name(bi->loader));
    printk("command line: %s\n", bi->cmdline[0] ? bi->cmdline : "(empty)");
    printk("image: loaded at 0x%llx (linked at 0x%llx)\n", (unsigned long long)load_addr,
           (unsigned long long)(uintptr_t)__kernel_phys_start);
    printk("cpu: %s, %s; accelerator %s%s%s\n", cpu.vendor, cpu.brand[0] ? cpu.brand : "?",
           accel_name(cpu.accel), cpu.hypervisor ? ", hypervisor " : "",
           cpu.hypervisor ? cpu.hv_signature : "");
    if (bi->fb.present)
        printk("screen: %ux%u, %u bpp, type %u at 0x%llx\n", bi->fb.width, bi->fb.height,
               bi->fb.bpp, bi->fb.type, (unsigned long long)bi->fb.addr);
    for (unsigned i = 0; i < bi->module_count; i++)
        printk("module %u: [0x%llx, 0x%llx) %s\n", i, (unsigned long long)bi->modules[i].start,
               (unsigned long long)bi->modules[i].end, bi->modules[i].cmdline);
}

void bootinfo_report(const struct bootinfo *bi)
{
    uint64_t load_addr = (uint64_t)__kernel_phys_start + kimage_offset;

    print_text(bi, load_addr);
    boot_record(bi, bi_loader_name(bi->loader), load_addr, serial_present());
}
