// SPDX-License-Identifier: MIT
// GDT, TSS and IDT for the 32 exceptions. Every exception is fatal: the
// handler prints what happened, with a symbolised backtrace, and fails the run.
#include "kernel/traps.h"

#include "kernel/lib/compiler.h"
#include "kernel/cpu.h"
#include "kernel/exit.h"
#include "kernel/smp/apic.h"
#include "kernel/ksyms.h"
#include "kernel/smp/percpu.h"
#include "kernel/console/printk.h"
#include "kernel/lib/string.h"

#define SEL_KCODE 0x08
#define SEL_KDATA 0x10
#define SEL_TSS   0x18

struct idt_entry {
    uint16_t off_lo;
    uint16_t sel;
    uint8_t ist;
    uint8_t type_attr;
    uint16_t off_mid;
    uint32_t off_hi;
    uint32_t reserved;
} __packed;
_Static_assert(sizeof(struct idt_entry) == 16, "IDT gate");

/* kernel/isr.asm pushes the vector and error code, then 15 registers, r15 last. */
_Static_assert(offsetof(struct trap_frame, r15) == 0, "trap frame starts with the last push");
_Static_assert(offsetof(struct trap_frame, vector) == 15 * 8, "15 registers below the vector");
_Static_assert(offsetof(struct trap_frame, error) == 16 * 8, "error code above the vector");
_Static_assert(offsetof(struct trap_frame, rip) == 17 * 8, "the CPU's frame above the stub's");
_Static_assert(sizeof(struct trap_frame) == 22 * 8, "the CPU pushes rip, cs, rflags, rsp, ss");

struct desc_ptr {
    uint16_t limit;
    uint64_t base;
} __packed;

/* The kernel's stack, set up by boot/entry.asm before kstart(). */
uint8_t boot_stack[65536] __aligned(16);
extern uint8_t boot_stack_top[];
__asm__(".globl boot_stack_top\n.set boot_stack_top, boot_stack + 65536");

enum { IST_DF = 1, IST_NMI = 2, IST_MC = 3 };

static struct trap_cpu boot_traps;
static struct idt_entry idt[256];
extern const uint64_t isr_stubs[32];
extern const char irq_wake_stub[], irq_spurious_stub[];
volatile int traps_fatal;

static const char *const names[32] = {
    "#DE divide error", "#DB debug", "NMI", "#BP breakpoint", "#OF overflow",
    "#BR bound range", "#UD invalid opcode", "#NM device not available",
    "#DF double fault", "coprocessor segment overrun", "#TS invalid TSS",
    "#NP segment not present", "#SS stack fault", "#GP general protection",
    "#PF page fault", "reserved 15", "#MF x87 error", "#AC alignment check",
    "#MC machine check", "#XM SIMD error", "#VE virtualisation",
    "#CP control protection", "reserved 22", "reserved 23", "reserved 24",
    "reserved 25", "reserved 26", "reserved 27", "#HV hypervisor injection",
    "#VC VMM communication", "#SX security", "reserved 31",
};

static struct idt_entry gate(uint64_t h, uint8_t ist)
{
    return (struct idt_entry){
        .off_lo = h & 0xffff, .sel = SEL_KCODE, .ist = ist,
        .type_attr = 0x8e,          /* present, DPL 0, interrupt gate */
        .off_mid = (h >> 16) & 0xffff, .off_hi = h >> 32,
    };
}

void traps_init_cpu(struct trap_cpu *tc)
{
    uint64_t base = (uint64_t)&tc->tss;
    uint64_t limit = sizeof(tc->tss) - 1;

    memset(&tc->tss, 0, sizeof(tc->tss));
    for (unsigned i = 0; i < IST_COUNT; i++)
        tc->tss.ist[i] = (uint64_t)&tc->ist[i][IST_STACK_SIZE];
    tc->tss.iomap_base = sizeof(tc->tss);

    tc->gdt[0] = 0;
    tc->gdt[1] = 0x00af9b000000ffffull;     /* 64-bit code, accessed */
    tc->gdt[2] = 0x00cf93000000ffffull;     /* data, accessed */
    /* 16-byte available 64-bit TSS descriptor. */
    tc->gdt[3] = (limit & 0xffff) | ((base & 0xffffff) << 16) | (0x89ull << 40) |
                 ((limit & 0xf0000) << 32) | ((base & 0xff000000) << 32);
    tc->gdt[4] = base >> 32;

    struct desc_ptr gp = { sizeof(tc->gdt) - 1, (uint64_t)tc->gdt };
    __asm__ volatile(
        "lgdt %0\n"
        "pushq %1\n"
        "leaq 1f(%%rip), %%rax\n"
        "pushq %%rax\n"
        "lretq\n"
        "1:\n"
        "movw %w2, %%ax\n"
        "movw %%ax, %%ds\n"
        "movw %%ax, %%es\n"
        "movw %%ax, %%ss\n"
        "ltr %w3\n"
        : : "m"(gp), "i"(SEL_KCODE), "i"(SEL_KDATA), "r"((uint16_t)SEL_TSS) : "rax", "memory");

    struct desc_ptr ip = { sizeof(idt) - 1, (uint64_t)idt };
    __asm__ volatile("lidt %0" : : "m"(ip));
}

void traps_init(void)
{
    for (unsigned v = 0; v < 32; v++)
        idt[v] = gate(isr_stubs[v], v == 8 ? IST_DF : v == 2 ? IST_NMI : v == 18 ? IST_MC : 0);
    idt[APIC_WAKE_VECTOR] = gate((uint64_t)irq_wake_stub, 0);
    idt[APIC_SPURIOUS_VECTOR] = gate((uint64_t)irq_spurious_stub, 0);
    traps_init_cpu(&boot_traps);
}

static bool within(uintptr_t p, uintptr_t lo, uintptr_t hi)
{
    return p >= lo && p + 16 <= hi;
}

/* True when [p, p + 16) lies on a stack of the CPU running this. */
static bool on_known_stack(uintptr_t p)
{
    const struct percpu *pc = percpu_current();
    const struct trap_cpu *tc = pc && pc->traps ? pc->traps : &boot_traps;

    if (pc && within(p, pc->stack_lo, pc->stack_hi))
        return true;
    if (!pc && within(p, (uintptr_t)boot_stack, (uintptr_t)boot_stack + sizeof(boot_stack)))
        return true;
    return within(p, (uintptr_t)tc->ist, (uintptr_t)tc->ist + sizeof(tc->ist));
}

static void print_addr(uintptr_t pc)
{
    uintptr_t off;
    const char *name = ksym_lookup(pc, &off);

    if (name)
        printk("  [<%016llx>] %s+0x%llx\n", (unsigned long long)pc, name, (unsigned long long)off);
    else
        printk("  [<%016llx>] ?\n", (unsigned long long)pc);
}

void backtrace(uintptr_t rbp)
{
    printk("backtrace:\n");
    /* Each frame is {saved rbp, return address}; rbp = 0 ends the chain. */
    for (int depth = 0; rbp && depth < 32; depth++) {
        if ((rbp & 7) || !on_known_stack(rbp)) {
            printk("  (frame pointer %016llx is off the stack; stopping)\n",
                   (unsigned long long)rbp);
            return;
        }
        const uintptr_t *frame = (const uintptr_t *)rbp;
        if (!frame[1])
            return;
        print_addr(frame[1]);
        if (frame[0] <= rbp)    /* stacks grow down: callers live higher */
            return;
        rbp = frame[0];
    }
}

void trap_handler(struct trap_frame *f)
{
    static int reporter = -1;
    const struct percpu *pc = percpu_current();
    int me = pc ? (int)pc->cpu : 0;
    unsigned v = (unsigned)f->vector;

    /* One report: the first CPU to fault gives it; a second fault on that
     * CPU ends the run, a fault on another CPU waits for the first. */
    if (__atomic_exchange_n(&traps_fatal, 1, __ATOMIC_ACQ_REL)) {
        if (__atomic_load_n(&reporter, __ATOMIC_ACQUIRE) != me)
            for (;;)
                __asm__ volatile("cli; hlt");
        printk("\nnested exception %u at %016llx while reporting one; giving up\n",
               v, (unsigned long long)f->rip);
        machine_exit(EXIT_FAIL);
    }
    __atomic_store_n(&reporter, me, __ATOMIC_RELEASE);
    printk("\nFATAL EXCEPTION on CPU %d (APIC id %u): vector %u (%s), error code 0x%llx\n", me,
           pc ? pc->apic_id : apic_boot_id(), v, v < 32 ? names[v] : "?",
           (unsigned long long)f->error);
    printk("RIP %016llx CS %04llx RFLAGS %016llx\n", (unsigned long long)f->rip,
           (unsigned long long)f->cs, (unsigned long long)f->rflags);
    printk("RSP %016llx SS %04llx CR2 %016llx CR3 %016llx\n", (unsigned long long)f->rsp,
           (unsigned long long)f->ss, (unsigned long long)read_cr2(),
           (unsigned long long)read_cr3());
    printk("RAX %016llx RBX %016llx RCX %016llx RDX %016llx\n",
           (unsigned long long)f->rax, (unsigned long long)f->rbx,
           (unsigned long long)f->rcx, (unsigned long long)f->rdx);
    printk("RSI %016llx RDI %016llx RBP %016llx R8  %016llx\n",
           (unsigned long long)f->rsi, (unsigned long long)f->rdi,
           (unsigned long long)f->rbp, (unsigned long long)f->r8);
    printk("R9  %016llx R10 %016llx R11 %016llx R12 %016llx\n",
           (unsigned long long)f->r9, (unsigned long long)f->r10,
           (unsigned long long)f->r11, (unsigned long long)f->r12);
    printk("R13 %016llx R14 %016llx R15 %016llx\n",
           (unsigned long long)f->r13, (unsigned long long)f->r14,
           (unsigned long long)f->r15);
    printk("at:\n");
    print_addr(f->rip);
    backtrace(f->rbp);
    machine_fail(v < 32 ? names[v] : "exception");
}
