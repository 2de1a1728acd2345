/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A multiboot guest for QEMU's x86 `pc` machine (-kernel dirty.elf; QEMU's multiboot loader
 * enters it in 32-bit protected mode, paging off): it stores one 32-bit word into every 4 KiB
 * page from DIRTY_START to the end of a 128 MiB guest, forever, and after each pass writes
 * "p%08x\n" (the pass number) to COM1, so that a test sees it run on, on the migration's
 * destination. The first 2 MiB (this code at 1 MiB, the BIOS areas) are not written.
 * Linked with -N at 1 MiB: without -N the ELF header lands in a LOAD segment below it.
 */
#define COM1		0x3f8
#define DIRTY_START	0x00200000
#define DIRTY_END	0x08000000	/* -m 128M */

	.text
	.code32
	.global _start
_start:
	jmp	entry
	.align	4
	.long	0x1badb002		/* multiboot magic: within the first 8 KiB of the file */
	.long	0			/* flags: an ELF, no address fields */
	.long	-0x1badb002		/* checksum */
entry:
	mov	$COM1, %dx
	xor	%ebx, %ebx		/* passes done */
pass:
	mov	$DIRTY_START, %edi
1:	mov	%ebx, (%edi)
	add	$4096, %edi
	cmp	$DIRTY_END, %edi
	jb	1b
	inc	%ebx
	mov	$'p', %al
	out	%al, %dx
	mov	$28, %ecx		/* 8 hex digits, most significant first */
2:	mov	%ebx, %eax
	shr	%cl, %eax
	and	$0xf, %eax
	cmp	$10, %eax
	jb	3f
	add	$('a' - 10 - '0'), %eax
3:	add	$'0', %eax
	out	%al, %dx
	sub	$4, %ecx
	jns	2b
	mov	$'\n', %al
	out	%al, %dx
	jmp	pass
