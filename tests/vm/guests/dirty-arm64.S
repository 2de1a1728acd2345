/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A bare-metal guest for QEMU's arm64 `virt` machine (-kernel dirty.elf, MMU off): it stores one
 * 64-bit word into every 4 KiB page from DIRTY_START to the end of a 128 MiB guest, forever, and
 * after each pass writes "p%08x\n" (the pass number) to the PL011 UART, so that a test sees it run
 * on, on the migration's destination. The first 2 MiB of RAM (this code, QEMU's DTB) are not
 * written but are mapped by the guest running there: every 2 MiB block of the guest's RAM is in
 * use. With the MMU off data accesses are Device memory: aligned stores only.
 */
#define UART		0x09000000
#define UARTCR		0x30
#define DIRTY_START	0x40200000	/* RAM starts at 1 GiB on virt */
#define DIRTY_END	0x48000000	/* -m 128M */

	.text
	.global _start
_start:
	ldr	x0, =UART
	mov	w1, #0x301		/* UARTCR: UARTEN | TXE | RXE; QEMU >= 9 sends nothing without */
	str	w1, [x0, #UARTCR]
	mov	x5, #0			/* passes done */
pass:
	ldr	x2, =DIRTY_START
	ldr	x3, =DIRTY_END
1:	str	x5, [x2]
	add	x2, x2, #4096
	cmp	x2, x3
	b.lo	1b
	add	x5, x5, #1
	mov	w1, #'p'
	str	w1, [x0]
	mov	x6, #28			/* 8 hex digits, most significant first */
2:	lsr	x7, x5, x6
	and	x7, x7, #0xf
	add	x8, x7, #'0'
	add	x9, x7, #('a' - 10)
	cmp	x7, #10
	csel	x7, x8, x9, lo
	str	w7, [x0]
	subs	x6, x6, #4
	b.ge	2b
	mov	w1, #'\n'
	str	w1, [x0]
	b	pass
	.ltorg
