// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: eSDHC register access layer (esdhc-io.c) against a fake
 * big-endian register file.
 *
 * The fake stores every word as __be32, as the e500 sees its eSDHC, so
 * "byte N of the register file" means the same on any host: the checks on
 * raw bytes hold on little-endian x86 and on big-endian e500 alike.
 */
#include <kunit/test.h>
#include <linux/mmc/mmc.h>
#include <linux/module.h>

#include "sdhci.h"
#include "esdhc-io.h"
#include "esdhc-errata.h"
#include "esdhc-soc.h"

/* SDHCI error interrupt status: the upper half of the status word */
#define ERR_INT_STATUS	(SDHCI_INT_STATUS + 2)

#define FAKE_WORDS	((ESDHC_DMA_SYSCTL + 4) / 4)

struct fake_esdhc {
	struct kunit *test;
	__be32 regs[FAKE_WORDS];
	struct esdhc_io io;
	unsigned int writes;
	unsigned int last_off;
	u32 last_val;
};

static u32 fake_read32(void *ctx, unsigned int off)
{
	struct fake_esdhc *f = ctx;

	/* the eSDHC decodes aligned 32-bit accesses only */
	KUNIT_EXPECT_EQ(f->test, off & 3, 0U);
	KUNIT_ASSERT_LT(f->test, off / 4, FAKE_WORDS);
	return be32_to_cpu(f->regs[off / 4]);
}

static void fake_write32(void *ctx, unsigned int off, u32 val)
{
	struct fake_esdhc *f = ctx;
	u32 old;

	KUNIT_EXPECT_EQ(f->test, off & 3, 0U);
	KUNIT_ASSERT_LT(f->test, off / 4, FAKE_WORDS);
	f->writes++;
	f->last_off = off;
	f->last_val = val;
	old = be32_to_cpu(f->regs[off / 4]);
	/* IRQSTAT behaves like the hardware: a 1 clears, a 0 keeps */
	if (off == ESDHC_IRQSTAT)
		val = old & ~val;
	f->regs[off / 4] = cpu_to_be32(val);
}

static struct fake_esdhc *fake_new(struct kunit *test, unsigned int flags)
{
	struct fake_esdhc *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->test = test;
	f->io.ctx = f;
	f->io.read32 = fake_read32;
	f->io.write32 = fake_write32;
	f->io.flags = flags;
	return f;
}

/* Preset a word without counting it as a driver write. */
static void fake_set(struct fake_esdhc *f, unsigned int off, u32 val)
{
	f->regs[off / 4] = cpu_to_be32(val);
}

static u32 fake_get(struct fake_esdhc *f, unsigned int off)
{
	return be32_to_cpu(f->regs[off / 4]);
}

/* Byte @off of the register file as the bus sees it. */
static u8 fake_byte(struct fake_esdhc *f, unsigned int off)
{
	return ((u8 *)f->regs)[off];
}

static void esdhc_io_long_lanes(struct kunit *test)
{
	struct fake_esdhc *f = fake_new(test, 0);

	esdhc_io_writel(&f->io, 0x12345678, SDHCI_ARGUMENT);
	/* big-endian word: most significant byte at the lowest address */
	KUNIT_EXPECT_EQ(test, fake_byte(f, SDHCI_ARGUMENT + 0), 0x12);
	KUNIT_EXPECT_EQ(test, fake_byte(f, SDHCI_ARGUMENT + 1), 0x34);
	KUNIT_EXPECT_EQ(test, fake_byte(f, SDHCI_ARGUMENT + 2), 0x56);
	KUNIT_EXPECT_EQ(test, fake_byte(f, SDHCI_ARGUMENT + 3), 0x78);
	KUNIT_EXPECT_EQ(test, esdhc_io_readl(&f->io, SDHCI_ARGUMENT),
			0x12345678U);
	KUNIT_EXPECT_EQ(test, f->writes, 1U);
}

static void esdhc_io_narrow_reads(struct kunit *test)
{
	struct fake_esdhc *f = fake_new(test, 0);

	/* BLKATTR: 8 blocks of 512 bytes */
	fake_set(f, SDHCI_BLOCK_SIZE, 0x00080200);
	KUNIT_EXPECT_EQ(test, esdhc_io_readw(&f->io, SDHCI_BLOCK_SIZE), 0x0200);
	KUNIT_EXPECT_EQ(test, esdhc_io_readw(&f->io, SDHCI_BLOCK_COUNT), 0x0008);

	/* SYSCTL: reset byte 0x2f, timeout byte 0x2e */
	fake_set(f, ESDHC_SYSCTL, 0x010e80f7);
	KUNIT_EXPECT_EQ(test, esdhc_io_readb(&f->io, SDHCI_TIMEOUT_CONTROL),
			0x0e);
	KUNIT_EXPECT_EQ(test, esdhc_io_readb(&f->io, SDHCI_SOFTWARE_RESET),
			0x01);

	/* IRQSTAT: normal half low, error half high */
	fake_set(f, ESDHC_IRQSTAT, 0x00108001);
	KUNIT_EXPECT_EQ(test, esdhc_io_readw(&f->io, SDHCI_INT_STATUS), 0x8001);
	KUNIT_EXPECT_EQ(test, esdhc_io_readw(&f->io, ERR_INT_STATUS),
			0x0010);

	/* reading never writes */
	KUNIT_EXPECT_EQ(test, f->writes, 0U);
}

static void esdhc_io_narrow_writes_keep_lanes(struct kunit *test)
{
	struct fake_esdhc *f = fake_new(test, 0);

	fake_set(f, ESDHC_SYSCTL, 0x000080f1);
	esdhc_io_writeb(&f->io, 0x0e, SDHCI_TIMEOUT_CONTROL);
	KUNIT_EXPECT_EQ(test, fake_get(f, ESDHC_SYSCTL), 0x000e80f1U);
	esdhc_io_writeb(&f->io, SDHCI_RESET_ALL, SDHCI_SOFTWARE_RESET);
	KUNIT_EXPECT_EQ(test, fake_get(f, ESDHC_SYSCTL), 0x010e80f1U);
	/* SDHCI byte 0x2f is the most significant byte of word 0x2c */
	KUNIT_EXPECT_EQ(test, fake_byte(f, 0x2c), 0x01);
	KUNIT_EXPECT_EQ(test, fake_byte(f, 0x2d), 0x0e);

	/* block count lands in the upper half, block size untouched */
	fake_set(f, SDHCI_BLOCK_SIZE, 0x00000200);
	esdhc_io_writew(&f->io, 0x1234, SDHCI_BLOCK_COUNT);
	KUNIT_EXPECT_EQ(test, fake_get(f, SDHCI_BLOCK_SIZE), 0x12340200U);

	/* interrupt enables are plain read-write: both halves kept */
	fake_set(f, SDHCI_INT_ENABLE, 0xffff0000);
	esdhc_io_writew(&f->io, 0x00cb, SDHCI_INT_ENABLE);
	KUNIT_EXPECT_EQ(test, fake_get(f, SDHCI_INT_ENABLE), 0xffff00cbU);
}

static void esdhc_io_block_size_boundary(struct kunit *test)
{
	struct fake_esdhc *f = fake_new(test, 0);

	fake_set(f, SDHCI_BLOCK_SIZE, 0x00100000);
	/* 512 KiB SDMA boundary + 512 bytes: only the size may land */
	esdhc_io_writew(&f->io, SDHCI_MAKE_BLKSZ(7, 512), SDHCI_BLOCK_SIZE);
	KUNIT_EXPECT_EQ(test, fake_get(f, SDHCI_BLOCK_SIZE), 0x00100200U);
	esdhc_io_writew(&f->io, SDHCI_MAKE_BLKSZ(7, 2048), SDHCI_BLOCK_SIZE);
	KUNIT_EXPECT_EQ(test, fake_get(f, SDHCI_BLOCK_SIZE), 0x00100800U);
}

static void esdhc_io_w1c_not_widened(struct kunit *test)
{
	struct fake_esdhc *f = fake_new(test, 0);

	/* command complete, transfer complete, command timeout error */
	fake_set(f, ESDHC_IRQSTAT, 0x00010003);

	/* acking command complete leaves transfer complete and the error */
	esdhc_io_writew(&f->io, SDHCI_INT_RESPONSE, SDHCI_INT_STATUS);
	KUNIT_EXPECT_EQ(test, fake_get(f, ESDHC_IRQSTAT), 0x00010002U);
	KUNIT_EXPECT_EQ(test, f->last_val, (u32)SDHCI_INT_RESPONSE);

	/* acking the error half leaves the normal half */
	esdhc_io_writew(&f->io, 0x0001, ERR_INT_STATUS);
	KUNIT_EXPECT_EQ(test, fake_get(f, ESDHC_IRQSTAT), 0x00000002U);
	KUNIT_EXPECT_EQ(test, f->last_val, 0x00010000U);

	/* byte acks likewise */
	fake_set(f, ESDHC_IRQSTAT, 0x80ff00ff);
	esdhc_io_writeb(&f->io, 0x01, SDHCI_INT_STATUS + 1);
	KUNIT_EXPECT_EQ(test, fake_get(f, ESDHC_IRQSTAT), 0x80ff00ffU);
	esdhc_io_writeb(&f->io, 0x80, SDHCI_INT_STATUS + 3);
	KUNIT_EXPECT_EQ(test, fake_get(f, ESDHC_IRQSTAT), 0x00ff00ffU);
	esdhc_io_writeb(&f->io, 0x0f, SDHCI_INT_STATUS);
	KUNIT_EXPECT_EQ(test, fake_get(f, ESDHC_IRQSTAT), 0x00ff00f0U);

	/* a full-width ack clears exactly what it names */
	esdhc_io_writel(&f->io, 0x00f000f0, SDHCI_INT_STATUS);
	KUNIT_EXPECT_EQ(test, fake_get(f, ESDHC_IRQSTAT), 0x000f0000U);
}

static void esdhc_io_force_event_not_widened(struct kunit *test)
{
	struct fake_esdhc *f = fake_new(test, 0);

	/* whatever FEVT reads back must not be replayed as events */
	fake_set(f, ESDHC_FEVT, 0xffffffff);
	esdhc_io_writew(&f->io, 0x0001, ESDHC_FEVT);
	KUNIT_EXPECT_EQ(test, f->last_off, (unsigned int)ESDHC_FEVT);
	KUNIT_EXPECT_EQ(test, f->last_val, 0x00000001U);
	esdhc_io_writew(&f->io, 0x0010, ESDHC_FEVT + 2);
	KUNIT_EXPECT_EQ(test, f->last_val, 0x00100000U);
}

static void esdhc_io_command_shadow(struct kunit *test)
{
	struct fake_esdhc *f = fake_new(test, 0);
	u16 mode = SDHCI_TRNS_DMA | SDHCI_TRNS_BLK_CNT_EN |
		   SDHCI_TRNS_AUTO_CMD12 | SDHCI_TRNS_MULTI;
	/* SDHCI_MAKE_CMD() does not parenthesise its flags argument */
	u16 flags = SDHCI_CMD_RESP_SHORT | SDHCI_CMD_CRC | SDHCI_CMD_INDEX |
		    SDHCI_CMD_DATA;
	u16 cmd = SDHCI_MAKE_CMD(25, flags);

	/* the mode alone must not start anything */
	esdhc_io_writew(&f->io, mode, SDHCI_TRANSFER_MODE);
	KUNIT_EXPECT_EQ(test, f->writes, 0U);
	KUNIT_EXPECT_EQ(test, esdhc_io_readw(&f->io, SDHCI_TRANSFER_MODE), mode);

	/* the command goes out with the mode, in one write */
	esdhc_io_writew(&f->io, cmd, SDHCI_COMMAND);
	KUNIT_EXPECT_EQ(test, f->writes, 1U);
	KUNIT_EXPECT_EQ(test, f->last_off, (unsigned int)ESDHC_XFERTYP);
	KUNIT_EXPECT_EQ(test, f->last_val, ((u32)cmd << 16) | mode);
	KUNIT_EXPECT_EQ(test, fake_byte(f, ESDHC_XFERTYP), 25);

	/* a command without data after a zeroed mode */
	esdhc_io_writew(&f->io, 0, SDHCI_TRANSFER_MODE);
	esdhc_io_writew(&f->io, SDHCI_MAKE_CMD(13, SDHCI_CMD_RESP_SHORT),
			SDHCI_COMMAND);
	KUNIT_EXPECT_EQ(test, f->last_val,
			(u32)SDHCI_MAKE_CMD(13, SDHCI_CMD_RESP_SHORT) << 16);
}

static void esdhc_io_host_control(struct kunit *test)
{
	struct fake_esdhc *f = fake_new(test, 0);
	/* D3CD, endian mode and voltage select are not SDHCI's to change */
	u32 keep = BIT(3) | (2 << 4) | BIT(10);
	u8 ctrl;

	fake_set(f, ESDHC_PROCTL, keep);
	esdhc_io_writeb(&f->io, SDHCI_CTRL_LED | SDHCI_CTRL_4BITBUS |
			SDHCI_CTRL_HISPD | SDHCI_CTRL_ADMA32,
			SDHCI_HOST_CONTROL);
	/*
	 * HISPD must not turn into the 8-bit width bit; the LED bit stays
	 * zero (reserved, as in stock sdhci-of-esdhc)
	 */
	KUNIT_EXPECT_EQ(test, fake_get(f, ESDHC_PROCTL),
			keep | ESDHC_PROCTL_DTW_4 |
			(2 << ESDHC_PROCTL_DMAS_SHIFT));
	ctrl = esdhc_io_readb(&f->io, SDHCI_HOST_CONTROL);
	KUNIT_EXPECT_EQ(test, ctrl, SDHCI_CTRL_4BITBUS | SDHCI_CTRL_ADMA32);

	/* read-modify-write as sdhci_set_bus_width() does it */
	ctrl &= ~SDHCI_CTRL_4BITBUS;
	esdhc_io_writeb(&f->io, ctrl | SDHCI_CTRL_8BITBUS, SDHCI_HOST_CONTROL);
	KUNIT_EXPECT_EQ(test, fake_get(f, ESDHC_PROCTL),
			keep | ESDHC_PROCTL_DTW_8 |
			(2 << ESDHC_PROCTL_DMAS_SHIFT));
	KUNIT_EXPECT_EQ(test, esdhc_io_readb(&f->io, SDHCI_HOST_CONTROL),
			SDHCI_CTRL_8BITBUS | SDHCI_CTRL_ADMA32);

	/* a boot loader's LED bit is cleared by the next write */
	fake_set(f, ESDHC_PROCTL, fake_get(f, ESDHC_PROCTL) | ESDHC_PROCTL_LCTL);
	esdhc_io_writeb(&f->io, SDHCI_CTRL_LED | SDHCI_CTRL_8BITBUS |
			SDHCI_CTRL_ADMA32, SDHCI_HOST_CONTROL);
	KUNIT_EXPECT_EQ(test, fake_get(f, ESDHC_PROCTL) & ESDHC_PROCTL_LCTL, 0U);

	/* back to SDMA, 1 bit; card detect test bits map through */
	esdhc_io_writeb(&f->io, SDHCI_CTRL_CDTEST_EN | SDHCI_CTRL_CDTEST_INS,
			SDHCI_HOST_CONTROL);
	KUNIT_EXPECT_EQ(test, fake_get(f, ESDHC_PROCTL),
			keep | ESDHC_PROCTL_CDTL | ESDHC_PROCTL_CDSS);
}

static void esdhc_io_host_control_width_only(struct kunit *test)
{
	struct fake_esdhc *f = fake_new(test, ESDHC_IO_HOSTCTL_WIDTH_ONLY);

	fake_set(f, ESDHC_PROCTL, 0x00000020);
	esdhc_io_writeb(&f->io, SDHCI_CTRL_LED | SDHCI_CTRL_4BITBUS |
			SDHCI_CTRL_ADMA32, SDHCI_HOST_CONTROL);
	KUNIT_EXPECT_EQ(test, fake_get(f, ESDHC_PROCTL),
			0x00000020U | ESDHC_PROCTL_DTW_4);
}

static void esdhc_io_power_control_ignored(struct kunit *test)
{
	struct fake_esdhc *f = fake_new(test, 0);

	fake_set(f, ESDHC_PROCTL, 0x00000622);
	esdhc_io_writeb(&f->io, SDHCI_POWER_ON | SDHCI_POWER_330,
			SDHCI_POWER_CONTROL);
	esdhc_io_writeb(&f->io, 0, SDHCI_POWER_CONTROL);
	KUNIT_EXPECT_EQ(test, f->writes, 0U);
	KUNIT_EXPECT_EQ(test, fake_get(f, ESDHC_PROCTL), 0x00000622U);
	KUNIT_EXPECT_EQ(test, esdhc_io_readb(&f->io, SDHCI_POWER_CONTROL), 0);

	/* block gap and wakeup bytes are standard */
	esdhc_io_writeb(&f->io, 0x01, SDHCI_BLOCK_GAP_CONTROL);
	KUNIT_EXPECT_EQ(test, fake_get(f, ESDHC_PROCTL), 0x00010622U);
	esdhc_io_writeb(&f->io, 0x07, SDHCI_WAKE_UP_CONTROL);
	KUNIT_EXPECT_EQ(test, fake_get(f, ESDHC_PROCTL), 0x07010622U);
}

static void esdhc_io_version(struct kunit *test)
{
	struct fake_esdhc *f = fake_new(test, 0);
	u16 ver;

	/* vendor 2.2, SDHCI spec 2.0 */
	fake_set(f, ESDHC_HOSTVER, 0x00001201);
	ver = esdhc_io_readw(&f->io, SDHCI_HOST_VERSION);
	KUNIT_EXPECT_EQ(test, ver, 0x1201);
	KUNIT_EXPECT_EQ(test, ver & SDHCI_SPEC_VER_MASK, SDHCI_SPEC_200);
	KUNIT_EXPECT_EQ(test, esdhc_io_readw(&f->io, SDHCI_SLOT_INT_STATUS), 0);
	esdhc_io_writew(&f->io, 0xffff, SDHCI_HOST_VERSION);
	KUNIT_EXPECT_EQ(test, f->writes, 0U);

	/* T4240 rev 1.0 and 2.0: vendor 2.3, spec 2.0, whatever it reads */
	f = fake_new(test, ESDHC_IO_HOSTVER_V23);
	fake_set(f, ESDHC_HOSTVER, 0x00000102);
	KUNIT_EXPECT_EQ(test, esdhc_io_readw(&f->io, SDHCI_HOST_VERSION),
			0x1301);
}

static void esdhc_io_present_state(struct kunit *test)
{
	struct fake_esdhc *f = fake_new(test, 0);
	struct fake_esdhc *p2020 = fake_new(test, ESDHC_IO_IGNORE_DATA_INHIBIT);
	/* DAT[7:0] high, CMD high, card in, clock stable, both inhibits */
	u32 prs = 0xff000000 | ESDHC_PRSSTAT_CLSL | SDHCI_CARD_PRESENT |
		  ESDHC_PRSSTAT_SDSTB | ESDHC_PRSSTAT_GATES |
		  SDHCI_CMD_INHIBIT | SDHCI_DATA_INHIBIT;

	fake_set(f, ESDHC_PRSSTAT, prs);
	KUNIT_EXPECT_EQ(test, esdhc_io_readl(&f->io, SDHCI_PRESENT_STATE),
			(u32)(SDHCI_DATA_LVL_MASK | SDHCI_CMD_LVL |
			      SDHCI_CARD_PRESENT | SDHCI_CMD_INHIBIT |
			      SDHCI_DATA_INHIBIT));

	/* DAT0 low (card busy), CMD low */
	fake_set(f, ESDHC_PRSSTAT, 0xfe000000 | SDHCI_CARD_PRESENT);
	KUNIT_EXPECT_EQ(test, esdhc_io_readl(&f->io, SDHCI_PRESENT_STATE),
			(u32)(0x00e00000 | SDHCI_CARD_PRESENT));

	fake_set(p2020, ESDHC_PRSSTAT, prs);
	KUNIT_EXPECT_EQ(test,
			esdhc_io_readl(&p2020->io, SDHCI_PRESENT_STATE) &
			(SDHCI_CMD_INHIBIT | SDHCI_DATA_INHIBIT),
			(u32)SDHCI_CMD_INHIBIT);
}

static void esdhc_io_caps(struct kunit *test)
{
	struct fake_esdhc *v22 = fake_new(test, 0);
	struct fake_esdhc *v23 = fake_new(test, ESDHC_IO_ADMA2);
	/* ADMAS, high speed, SDMA, suspend, 3.3 V, 1 KiB blocks */
	u32 caps = ESDHC_HOSTCAPBLT_ADMAS | SDHCI_CAN_DO_HISPD |
		   SDHCI_CAN_DO_SDMA | SDHCI_CAN_DO_SUSPEND | SDHCI_CAN_VDD_330 |
		   (1 << SDHCI_MAX_BLOCK_SHIFT);

	fake_set(v22, ESDHC_HOSTCAPBLT, caps);
	fake_set(v23, ESDHC_HOSTCAPBLT, caps);
	KUNIT_EXPECT_FALSE(test, esdhc_io_readl(&v22->io, SDHCI_CAPABILITIES) &
			   SDHCI_CAN_DO_ADMA2);
	KUNIT_EXPECT_EQ(test, esdhc_io_readl(&v23->io, SDHCI_CAPABILITIES),
			caps | SDHCI_CAN_DO_ADMA2);

	/* no ADMAS, no ADMA2 even when allowed */
	fake_set(v23, ESDHC_HOSTCAPBLT, caps & ~ESDHC_HOSTCAPBLT_ADMAS);
	KUNIT_EXPECT_FALSE(test, esdhc_io_readl(&v23->io, SDHCI_CAPABILITIES) &
			   SDHCI_CAN_DO_ADMA2);

	/* the watermark register is not SDHCI 3.0 capabilities */
	fake_set(v22, ESDHC_WML, 0x00100010);
	KUNIT_EXPECT_EQ(test, esdhc_io_readl(&v22->io, SDHCI_CAPABILITIES_1),
			0U);
}

static void esdhc_io_clock_control(struct kunit *test)
{
	struct fake_esdhc *f = fake_new(test, 0);

	/* prescaler 16 (SDCLKFS 8), divisor 16, SD clock on, timeout 0xe */
	fake_set(f, ESDHC_SYSCTL, 0x000e08f8);
	fake_set(f, ESDHC_PRSSTAT, ESDHC_PRSSTAT_SDSTB);
	KUNIT_EXPECT_EQ(test, esdhc_io_readw(&f->io, SDHCI_CLOCK_CONTROL),
			0x0800 | SDHCI_CLOCK_INT_EN | SDHCI_CLOCK_INT_STABLE |
			SDHCI_CLOCK_CARD_EN);

	/* SDHCI clock layout differs: such writes must not reach SYSCTL */
	esdhc_io_writew(&f->io, 0, SDHCI_CLOCK_CONTROL);
	esdhc_io_writew(&f->io, 0x0107, SDHCI_CLOCK_CONTROL);
	KUNIT_EXPECT_EQ(test, f->writes, 0U);
	KUNIT_EXPECT_EQ(test, fake_get(f, ESDHC_SYSCTL), 0x000e08f8U);

	/* clock stopped, not stable */
	fake_set(f, ESDHC_SYSCTL, 0x000e0000);
	fake_set(f, ESDHC_PRSSTAT, 0);
	KUNIT_EXPECT_EQ(test, esdhc_io_readw(&f->io, SDHCI_CLOCK_CONTROL), 0);
}

static struct kunit_case esdhc_io_cases[] = {
	KUNIT_CASE(esdhc_io_long_lanes),
	KUNIT_CASE(esdhc_io_narrow_reads),
	KUNIT_CASE(esdhc_io_narrow_writes_keep_lanes),
	KUNIT_CASE(esdhc_io_block_size_boundary),
	KUNIT_CASE(esdhc_io_w1c_not_widened),
	KUNIT_CASE(esdhc_io_force_event_not_widened),
	KUNIT_CASE(esdhc_io_command_shadow),
	KUNIT_CASE(esdhc_io_host_control),
	KUNIT_CASE(esdhc_io_host_control_width_only),
	KUNIT_CASE(esdhc_io_power_control_ignored),
	KUNIT_CASE(esdhc_io_version),
	KUNIT_CASE(esdhc_io_present_state),
	KUNIT_CASE(esdhc_io_caps),
	KUNIT_CASE(esdhc_io_clock_control),
	{ }
};

static struct kunit_suite esdhc_io_suite = {
	.name = "sdhci_esdhc_e500_io",
	.test_cases = esdhc_io_cases,
};

/* ---- errata sequences (esdhc-errata.c) on the same fake ---------------- */

#define TEST_IER	(SDHCI_INT_RESPONSE | SDHCI_INT_DATA_END | \
			 SDHCI_INT_DMA_END | SDHCI_INT_CARD_INT)

/*
 * Vendor 2.2: the data width and both interrupt enable words come back
 * after a data reset.  The test plays the hardware's clearing between the
 * save and the restore; the other PROCTL bits are left as they are.
 */
static void esdhc_errata_reset_restores_v22(struct kunit *test)
{
	struct fake_esdhc *f = fake_new(test, 0);
	struct esdhc_reset_saved s;

	fake_set(f, ESDHC_PROCTL, ESDHC_PROCTL_DTW_4 | ESDHC_PROCTL_LCTL);
	esdhc_errata_reset_save(&f->io, SDHCI_RESET_DATA, ESDHC_VENDOR_V22,
				&s);
	KUNIT_EXPECT_EQ(test, f->writes, 0U);

	/* what RSTD does to these words on such a part */
	fake_set(f, ESDHC_PROCTL, ESDHC_PROCTL_LCTL);
	fake_set(f, SDHCI_INT_ENABLE, 0);
	fake_set(f, SDHCI_SIGNAL_ENABLE, 0);

	esdhc_errata_reset_restore(&f->io, &s, TEST_IER);
	KUNIT_EXPECT_EQ(test, fake_get(f, ESDHC_PROCTL),
			ESDHC_PROCTL_DTW_4 | ESDHC_PROCTL_LCTL);
	KUNIT_EXPECT_EQ(test, fake_get(f, SDHCI_INT_ENABLE), TEST_IER);
	KUNIT_EXPECT_EQ(test, fake_get(f, SDHCI_SIGNAL_ENABLE), TEST_IER);
	KUNIT_EXPECT_EQ(test, f->writes, 3U);

	/*
	 * An older part (vendor 0, as QEMU reports) and the command + data
	 * reset of an error; a full reset (RESET_ALL) is followed by the
	 * library's own re-initialisation and is not bracketed.
	 */
	fake_set(f, ESDHC_PROCTL, ESDHC_PROCTL_DTW_8);
	esdhc_errata_reset_save(&f->io, SDHCI_RESET_CMD | SDHCI_RESET_DATA,
				0, &s);
	fake_set(f, ESDHC_PROCTL, 0);
	esdhc_errata_reset_restore(&f->io, &s, TEST_IER);
	KUNIT_EXPECT_EQ(test, fake_get(f, ESDHC_PROCTL), ESDHC_PROCTL_DTW_8);
}

/* 2.3 and later keep them; a command or full reset is not bracketed. */
static void esdhc_errata_reset_untouched(struct kunit *test)
{
	struct fake_esdhc *f = fake_new(test, 0);
	struct esdhc_reset_saved s;

	fake_set(f, ESDHC_PROCTL, ESDHC_PROCTL_DTW_4);
	esdhc_errata_reset_save(&f->io, SDHCI_RESET_DATA, ESDHC_VENDOR_V23,
				&s);
	KUNIT_EXPECT_FALSE(test, s.restore);
	esdhc_errata_reset_restore(&f->io, &s, TEST_IER);
	esdhc_errata_reset_save(&f->io, SDHCI_RESET_CMD, ESDHC_VENDOR_V22, &s);
	KUNIT_EXPECT_FALSE(test, s.restore);
	esdhc_errata_reset_restore(&f->io, &s, TEST_IER);
	esdhc_errata_reset_save(&f->io, SDHCI_RESET_ALL, ESDHC_VENDOR_V22, &s);
	KUNIT_EXPECT_FALSE(test, s.restore);
	esdhc_errata_reset_restore(&f->io, &s, TEST_IER);
	KUNIT_EXPECT_EQ(test, f->writes, 0U);
}

/* The command in XFERTYP's upper half, the block count in BLKATTR's. */
static void fake_set_xfer(struct fake_esdhc *f, unsigned int opcode,
			  u16 blocks)
{
	u16 flags = SDHCI_CMD_RESP_SHORT | SDHCI_CMD_DATA;

	fake_set(f, ESDHC_XFERTYP, (u32)SDHCI_MAKE_CMD(opcode, flags) << 16);
	fake_set(f, SDHCI_BLOCK_SIZE, ((u32)blocks << 16) | 512);
}

/*
 * P2020's early transfer complete: during CMD25 with blocks still to go
 * it is acknowledged (a write of 1 to IRQSTAT) and taken out of the mask;
 * the final one, other commands and other bits pass untouched.
 */
static void esdhc_errata_early_data_end_cmd25(struct kunit *test)
{
	struct fake_esdhc *f = fake_new(test, 0);
	u32 both = SDHCI_INT_DATA_END | SDHCI_INT_DMA_END;

	fake_set_xfer(f, MMC_WRITE_MULTIPLE_BLOCK, 3);
	fake_set(f, ESDHC_IRQSTAT, both);
	KUNIT_EXPECT_EQ(test, esdhc_errata_early_data_end(&f->io, both),
			(u32)SDHCI_INT_DMA_END);
	KUNIT_EXPECT_EQ(test, f->writes, 1U);
	KUNIT_EXPECT_EQ(test, f->last_off, (unsigned int)ESDHC_IRQSTAT);
	KUNIT_EXPECT_EQ(test, fake_get(f, ESDHC_IRQSTAT),
			(u32)SDHCI_INT_DMA_END);

	/* no DATA_END in the mask: nothing read or written */
	KUNIT_EXPECT_EQ(test, esdhc_errata_early_data_end(&f->io,
							  SDHCI_INT_DMA_END),
			(u32)SDHCI_INT_DMA_END);

	/* the real end of the write */
	fake_set_xfer(f, MMC_WRITE_MULTIPLE_BLOCK, 0);
	KUNIT_EXPECT_EQ(test, esdhc_errata_early_data_end(&f->io, both), both);

	/* a multi-block read is not affected */
	fake_set_xfer(f, MMC_READ_MULTIPLE_BLOCK, 3);
	KUNIT_EXPECT_EQ(test, esdhc_errata_early_data_end(&f->io, both), both);
	KUNIT_EXPECT_EQ(test, f->writes, 1U);
}

/*
 * Suspend and resume: PROCTL (width, endian mode, DMA select) read once at
 * suspend and written back whole after the resume's full reset.
 */
static void esdhc_errata_resume_proctl(struct kunit *test)
{
	struct fake_esdhc *f = fake_new(test, 0);
	u32 proctl = ESDHC_PROCTL_DTW_4 | (2 << 4) |
		     (2 << ESDHC_PROCTL_DMAS_SHIFT);
	u32 saved;

	fake_set(f, ESDHC_PROCTL, proctl);
	saved = esdhc_errata_suspend_save(&f->io);
	KUNIT_EXPECT_EQ(test, f->writes, 0U);
	/* the reset on resume: PROCTL back to its default */
	fake_set(f, ESDHC_PROCTL, 0x20);
	esdhc_errata_resume_restore(&f->io, saved);
	KUNIT_EXPECT_EQ(test, f->writes, 1U);
	KUNIT_EXPECT_EQ(test, f->last_off, (unsigned int)ESDHC_PROCTL);
	KUNIT_EXPECT_EQ(test, fake_get(f, ESDHC_PROCTL), proctl);
}

/* Vendor versions without the 2.3 ADMA erratum: QEMU 10, 2.2, a later one. */
static const u8 vendors_not_v23[] = { 0x00, ESDHC_VENDOR_V22, 0x14 };

/* What the library hands .adma_workaround for an ADMA error at a gap. */
#define ADMA_AT_GAP	(SDHCI_INT_ADMA_ERROR | SDHCI_INT_DATA_END | \
			 SDHCI_INT_BLK_GAP)

/*
 * Vendor 2.3: every write of IRQSTATEN also enables the block gap event
 * (bit 2), whatever the access width, and nothing else changes; the
 * signal enable stays as written.  Other vendor versions get the value as
 * the library wrote it.
 */
static void esdhc_errata_adma_gap_int_enable(struct kunit *test)
{
	struct fake_esdhc *v23 =
		fake_new(test, esdhc_errata_vendor_io_flags(ESDHC_VENDOR_V23));
	struct fake_esdhc *f;
	unsigned int i;

	KUNIT_EXPECT_EQ(test, v23->io.flags, (unsigned int)ESDHC_IO_ADMA_GAP);
	esdhc_io_writel(&v23->io, TEST_IER, SDHCI_INT_ENABLE);
	KUNIT_EXPECT_EQ(test, v23->writes, 1U);
	KUNIT_EXPECT_EQ(test, v23->last_off, (unsigned int)SDHCI_INT_ENABLE);
	KUNIT_EXPECT_EQ(test, v23->last_val, 0x0000010fU);
	KUNIT_EXPECT_EQ(test, fake_get(v23, SDHCI_INT_ENABLE),
			(u32)(TEST_IER | SDHCI_INT_BLK_GAP));
	/* bit 2 sits in the last byte of the big-endian word */
	KUNIT_EXPECT_EQ(test, fake_byte(v23, SDHCI_INT_ENABLE + 3), 0x0f);

	esdhc_io_writel(&v23->io, TEST_IER, SDHCI_SIGNAL_ENABLE);
	KUNIT_EXPECT_EQ(test, fake_get(v23, SDHCI_SIGNAL_ENABLE), TEST_IER);

	/* "everything off" (runtime suspend) keeps only the status enable */
	esdhc_io_writel(&v23->io, 0, SDHCI_INT_ENABLE);
	KUNIT_EXPECT_EQ(test, fake_get(v23, SDHCI_INT_ENABLE),
			(u32)SDHCI_INT_BLK_GAP);

	/* 16-bit writes of either half go out with it too */
	fake_set(v23, SDHCI_INT_ENABLE, 0xffff0000);
	esdhc_io_writew(&v23->io, SDHCI_INT_RESPONSE, SDHCI_INT_ENABLE);
	KUNIT_EXPECT_EQ(test, fake_get(v23, SDHCI_INT_ENABLE), 0xffff0005U);
	fake_set(v23, SDHCI_INT_ENABLE, SDHCI_INT_RESPONSE);
	esdhc_io_writew(&v23->io, 0x0010, SDHCI_INT_ENABLE + 2);
	KUNIT_EXPECT_EQ(test, fake_get(v23, SDHCI_INT_ENABLE), 0x00100005U);
	KUNIT_EXPECT_EQ(test, v23->writes, 5U);

	for (i = 0; i < ARRAY_SIZE(vendors_not_v23); i++) {
		f = fake_new(test,
			     esdhc_errata_vendor_io_flags(vendors_not_v23[i]));
		KUNIT_EXPECT_EQ(test, f->io.flags, 0U);
		esdhc_io_writel(&f->io, TEST_IER, SDHCI_INT_ENABLE);
		KUNIT_EXPECT_EQ(test, f->last_val, 0x0000010bU);
		KUNIT_EXPECT_EQ(test, fake_get(f, SDHCI_INT_ENABLE), TEST_IER);
		esdhc_io_writew(&f->io, SDHCI_INT_RESPONSE, SDHCI_INT_ENABLE);
		KUNIT_EXPECT_EQ(test, fake_get(f, SDHCI_INT_ENABLE),
				(u32)SDHCI_INT_RESPONSE);
	}
}

/*
 * Vendor 2.3, ADMA error with transfer complete and block gap: the error
 * is cleared and DSADDR moves to the 512 KiB boundary after what was
 * transferred, in one write; from a boundary it is the next one.
 */
static void esdhc_errata_adma_gap_boundary(struct kunit *test)
{
	struct fake_esdhc *f =
		fake_new(test, esdhc_errata_vendor_io_flags(ESDHC_VENDOR_V23));
	struct mmc_data data = { .error = -EIO, .bytes_xfered = 0x3000 };

	fake_set(f, SDHCI_DMA_ADDRESS, 0x1007f000);
	fake_set(f, ESDHC_IRQSTAT, ADMA_AT_GAP);
	/* 0x1007f000 + 0x3000 = 0x10082000, inside 0x10080000-0x100fffff */
	KUNIT_EXPECT_TRUE(test, esdhc_errata_adma_gap(&f->io, ADMA_AT_GAP,
						      &data, 0x1007f000));
	KUNIT_EXPECT_EQ(test, data.error, 0);
	KUNIT_EXPECT_EQ(test, data.bytes_xfered, 0x81000U);
	KUNIT_EXPECT_EQ(test, f->writes, 1U);
	KUNIT_EXPECT_EQ(test, f->last_off, (unsigned int)SDHCI_DMA_ADDRESS);
	KUNIT_EXPECT_EQ(test, fake_get(f, SDHCI_DMA_ADDRESS), 0x10100000U);
	KUNIT_EXPECT_EQ(test, fake_byte(f, SDHCI_DMA_ADDRESS + 1), 0x10);
	KUNIT_EXPECT_EQ(test, fake_byte(f, SDHCI_DMA_ADDRESS + 2), 0x00);

	/* nothing transferred yet, start on a boundary */
	data.error = -EIO;
	data.bytes_xfered = 0;
	KUNIT_EXPECT_TRUE(test, esdhc_errata_adma_gap(&f->io, ADMA_AT_GAP,
						      &data, 0x10100000));
	KUNIT_EXPECT_EQ(test, data.error, 0);
	KUNIT_EXPECT_EQ(test, data.bytes_xfered, 0x80000U);
	KUNIT_EXPECT_EQ(test, fake_get(f, SDHCI_DMA_ADDRESS), 0x10180000U);

	/* other bits beside them do not matter; IRQSTAT is not acked here */
	data.error = -EIO;
	data.bytes_xfered = 0x200;
	KUNIT_EXPECT_TRUE(test, esdhc_errata_adma_gap(&f->io,
						      ADMA_AT_GAP |
						      SDHCI_INT_DMA_END,
						      &data, 0x0007fe00));
	KUNIT_EXPECT_EQ(test, fake_get(f, SDHCI_DMA_ADDRESS), 0x00100000U);
	KUNIT_EXPECT_EQ(test, data.bytes_xfered, 0x80200U);
	KUNIT_EXPECT_EQ(test, fake_get(f, ESDHC_IRQSTAT), (u32)ADMA_AT_GAP);
	KUNIT_EXPECT_EQ(test, f->writes, 3U);
}

/*
 * Not applicable: any other vendor version with every bit there, and
 * vendor 2.3 without transfer complete or without the block gap event.
 * No register is written and the transfer keeps its error.
 */
static void esdhc_errata_adma_gap_not_applicable(struct kunit *test)
{
	static const u32 masks[] = {
		SDHCI_INT_ADMA_ERROR,
		SDHCI_INT_ADMA_ERROR | SDHCI_INT_DATA_END,
		SDHCI_INT_ADMA_ERROR | SDHCI_INT_BLK_GAP,
		SDHCI_INT_ADMA_ERROR | SDHCI_INT_DMA_END | SDHCI_INT_BLK_GAP,
	};
	struct mmc_data data = { .error = -EIO, .bytes_xfered = 0x3000 };
	struct fake_esdhc *f;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(vendors_not_v23); i++) {
		f = fake_new(test,
			     esdhc_errata_vendor_io_flags(vendors_not_v23[i]));
		fake_set(f, SDHCI_DMA_ADDRESS, 0x1007f000);
		KUNIT_EXPECT_FALSE(test, esdhc_errata_adma_gap(&f->io,
							       ADMA_AT_GAP,
							       &data,
							       0x1007f000));
		KUNIT_EXPECT_EQ(test, f->writes, 0U);
		KUNIT_EXPECT_EQ(test, fake_get(f, SDHCI_DMA_ADDRESS),
				0x1007f000U);
	}

	f = fake_new(test, esdhc_errata_vendor_io_flags(ESDHC_VENDOR_V23));
	fake_set(f, SDHCI_DMA_ADDRESS, 0x1007f000);
	for (i = 0; i < ARRAY_SIZE(masks); i++)
		KUNIT_EXPECT_FALSE(test, esdhc_errata_adma_gap(&f->io, masks[i],
							       &data,
							       0x1007f000));
	KUNIT_EXPECT_EQ(test, f->writes, 0U);
	KUNIT_EXPECT_EQ(test, fake_get(f, SDHCI_DMA_ADDRESS), 0x1007f000U);
	KUNIT_EXPECT_EQ(test, data.error, -EIO);
	KUNIT_EXPECT_EQ(test, data.bytes_xfered, 0x3000U);
}

static struct kunit_case esdhc_errata_cases[] = {
	KUNIT_CASE(esdhc_errata_reset_restores_v22),
	KUNIT_CASE(esdhc_errata_reset_untouched),
	KUNIT_CASE(esdhc_errata_early_data_end_cmd25),
	KUNIT_CASE(esdhc_errata_adma_gap_int_enable),
	KUNIT_CASE(esdhc_errata_adma_gap_boundary),
	KUNIT_CASE(esdhc_errata_adma_gap_not_applicable),
	KUNIT_CASE(esdhc_errata_resume_proctl),
	{ }
};

static struct kunit_suite esdhc_errata_suite = {
	.name = "sdhci_esdhc_e500_errata",
	.test_cases = esdhc_errata_cases,
};

kunit_test_suites(&esdhc_io_suite, &esdhc_errata_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_DESCRIPTION("KUnit tests for the sdhci-esdhc-e500 eSDHC layers");
MODULE_LICENSE("GPL");
