// SPDX-License-Identifier: MIT
// The `boot` record (docs/records.md): what the loader handed over and
// what the CPU is. Portable: the kernel and the hosted runner both write it.
#include "kernel/bootinfo/bootrec.h"

#include <stddef.h>

#include "kernel/console/record.h"
#include "kernel/cpu.h"
#include "kernel/version.h"

void boot_record(const struct bootinfo *bi, const char *loader, uint64_t load_addr, bool serial)
{
    struct record r;

    record_begin(&r, "boot");
    record_str(&r, "version", BOOTHEAP_VERSION);
    record_str(&r, "loader", loader);
    record_str(&r, "loader_name", bi->loader_name);
    record_str(&r, "cmdline", bi->cmdline);
    record_u64(&r, "load_addr", load_addr);
    record_str(&r, "accel", accel_name(cpu.accel));
    record_str(&r, "cpu_vendor", cpu.vendor);
    record_str(&r, "cpu_brand", cpu.brand);
    record_str(&r, "hypervisor", cpu.hypervisor ? cpu.hv_signature : "");
    record_bool(&r, "nx", cpu.nx);
    record_bool(&r, "gbpages", cpu.gbpages);
    record_bool(&r, "invariant_tsc", cpu.invariant_tsc);
    record_bool(&r, "serial", serial);
    record_str(&r, "mmap_source", bi->mmap_source);
    record_mmap(&r, "mmap", bi->mmap, bi->mmap_count);
    record_arr_begin(&r, "reserved");
    for (unsigned i = 0; i < bi->resv_count; i++) {
        record_obj_begin(&r, NULL);
        record_u64(&r, "start", bi->resv[i].start);
        record_u64(&r, "end", bi->resv[i].end);
        record_str(&r, "what", bi->resv[i].what);
        record_obj_end(&r);
    }
    record_arr_end(&r);
    record_u64(&r, "modules", bi->module_count);
    record_u64(&r, "rsdp_len", bi->rsdp_len);
    if (bi->fb.present) {
        record_obj_begin(&r, "fb");
        record_u64(&r, "addr", bi->fb.addr);
        record_u64(&r, "width", bi->fb.width);
        record_u64(&r, "height", bi->fb.height);
        record_u64(&r, "bpp", bi->fb.bpp);
        record_u64(&r, "type", bi->fb.type);
        record_obj_end(&r);
    }
    record_end(&r);
}
