#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The e500 eSDHC nodes of a kernel tree's own device trees, bound and
quirked by our host driver and by stock sdhci-of-esdhc.

Every arch/powerpc/boot/dts/**/*.dts is compiled as the kernel does it
(cpp, then the tree's scripts/dtc); each node with an eSDHC compatible
is a row (one that the tree disables too: a boot loader may
enable it). A row's board runs the kernels its cores take: its /cpus
node names the part or the core; e500v2 and e500mc parts a 32-bit
PPC_85xx kernel, e5500 and e6500 that and a 64-bit PPC_BOOK3E_64 one,
any other core (e300: the MPC837x boards; e600) neither. Which of those
kernels can build ours comes from our Kconfig's "depends on" and the
symbols each processor type selects in the tree's Kconfig.cputype.
Per row, on the SoC its tree names (the guts node) at SVR revisions 1.0,
2.0 and 3.0, and at vendor versions 0.0, 2.2 and 2.3:
  - bind: in each kernel of the board, exactly one driver matches the
    node configured with ours (our of_device_id table, read from our
    source, its #ifdef CONFIG_PPC_E500 entries kept where that kernel
    has PPC_E500), and one configured with stock (stock's table, read
    from the tree); every other driver of the tree's drivers/mmc/host/
    with an "esdhc" table entry counts too. Ours must be built in every
    kernel of an e500 board, and in none of another core's, where stock
    alone binds (and no quirks are compared);
  - quirks: host->quirks, host->quirks2 and the errata that our driver
    ends with (esdhc_soc_quirks(), built for the host as
    tests/tools/esdhc-soc/host.c) equal what stock applies, modelled
    below from the tree's sdhci-of-esdhc.c and sdhci-pltfm.c; each fact
    the model takes from those files is checked to be there, verbatim
    (an "anchor"), so a tree that changes one fails here.
Three P2020 rows are added to the tree's: p2020rdb.dts with
"fsl,p2020-rev1-esdhc" before, after and instead of "fsl,p2020-esdhc".

Prints "PASS name", "FAIL name why" and "DIAG text" lines for
tests/esdhc-dt-tests.sh, and the table (Markdown) to --table.
"""
import argparse
import glob
import os
import re
import struct
import subprocess
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--tree", required=True)
ap.add_argument("--dtc", required=True)
ap.add_argument("--host", required=True, help="the esdhc_soc_quirks() harness")
ap.add_argument("--include", required=True, help="the harness's sdhci.h")
ap.add_argument("--ours", required=True, help="drivers/mmc/host of the project")
ap.add_argument("--table", required=True)
ap.add_argument("--scratch", required=True)
args = ap.parse_args()
tree = args.tree
host_dir = os.path.join(tree, "drivers/mmc/host")


def out(kind, text):
    print(f"{kind} {text}", flush=True)


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


# --- the C defines that name quirk bits -----------------------------------

def defines(path, prefix):
    """NAME -> value of '#define NAME (1<<N)' / 'BIT(N)' / number lines"""
    vals = {}
    for m in re.finditer(r"^#define\s+(" + prefix + r"\w*)\s+(.+?)\s*(?:/\*.*)?$",
                         read(path), re.M):
        v = m.group(2)
        b = re.fullmatch(r"\(?\s*1U?L?\s*<<\s*(\d+)\s*\)?|BIT\((\d+)\)", v)
        if b:
            vals[m.group(1)] = 1 << int(b.group(1) or b.group(2))
        elif re.fullmatch(r"0x[0-9a-fA-F]+|\d+", v):
            vals[m.group(1)] = int(v, 0)
    return vals


SDHCI = defines(os.path.join(args.include, "sdhci.h"), "SDHCI_")
QUIRK = {k[len("SDHCI_QUIRK_"):]: v for k, v in SDHCI.items()
         if k.startswith("SDHCI_QUIRK_")}
QUIRK2 = {k[len("SDHCI_QUIRK2_"):]: v for k, v in SDHCI.items()
          if k.startswith("SDHCI_QUIRK2_")}
IO = defines(os.path.join(args.ours, "esdhc-io.h"), "ESDHC_IO_")
SOCF = defines(os.path.join(args.ours, "esdhc-soc.h"), "ESDHC_SOC_")


def q(*names):
    v = 0
    for n in names:
        v |= QUIRK[n]
    return v


def names(value, table):
    return [n for n, v in sorted(table.items(), key=lambda kv: kv[1]) if value & v]


def macro_quirks(path, macro):
    """the SDHCI_QUIRK_* names a '#define MACRO (A | B | ...)' ORs"""
    m = re.search(r"#define\s+" + macro + r"\s*\(((?:[^()]|\\\n)*)\)", read(path))
    if not m:
        sys.exit(f"no {macro} in {path}")
    return q(*re.findall(r"SDHCI_QUIRK_(\w+)", m.group(1)))


# --- anchors: the facts the model of stock takes from the tree -------------

anchors_bad = []


def anchor(path, *texts):
    """one of TEXTS (the forms of 6.1 and 6.12) is in PATH"""
    src = re.sub(r"\s+", " ", read(path))
    if not any(re.sub(r"\s+", " ", t) in src for t in texts):
        anchors_bad.append(f"{os.path.relpath(path, tree)}: {texts[0]!r}")


stock_c = os.path.join(host_dir, "sdhci-of-esdhc.c")
pltfm_c = os.path.join(host_dir, "sdhci-pltfm.c")
# the platform data of a big-endian node on PowerPC
anchor(stock_c, "static const struct sdhci_pltfm_data sdhci_esdhc_be_pdata = { "
       ".quirks = ESDHC_DEFAULT_QUIRKS | #ifdef CONFIG_PPC "
       "SDHCI_QUIRK_BROKEN_CARD_DETECTION | #endif "
       "SDHCI_QUIRK_NO_CARD_NO_RESET | SDHCI_QUIRK_NO_ENDATTR_IN_NOPDESC,")
# the probe's own quirks, after sdhci_get_of_property()
anchor(stock_c, "if (esdhc->vendor_ver == VENDOR_V_22) "
       "host->quirks2 |= SDHCI_QUIRK2_HOST_NO_CMD23;")
anchor(stock_c, "if (esdhc->vendor_ver > VENDOR_V_22) "
       "host->quirks &= ~SDHCI_QUIRK_NO_BUSY_IRQ;")
anchor(stock_c, 'tp = of_find_compatible_node(NULL, NULL, "fsl,p2020-esdhc"); '
       "if (tp) { of_node_put(tp); "
       "host->quirks |= SDHCI_QUIRK_RESET_AFTER_REQUEST; "
       "host->quirks |= SDHCI_QUIRK_BROKEN_TIMEOUT_VAL; }")
CD_WORKS = ["fsl,p5040-esdhc", "fsl,p5020-esdhc", "fsl,p4080-esdhc",
            "fsl,p1020-esdhc", "fsl,t1040-esdhc"]
anchor(stock_c, " ||".join(f' of_device_is_compatible(np, "{c}")'
                           for c in CD_WORKS).strip() + ") host->quirks &= ~SDHCI_QUIRK_BROKEN_CARD_DETECTION;")
anchor(stock_c, 'if (of_device_is_compatible(np, "fsl,p2020-esdhc")) { /* * '
       "Freescale messed up with P2020 as it has a non-standard * host control "
       "register */ host->quirks2 |= SDHCI_QUIRK2_BROKEN_HOST_CONTROL; "
       "esdhc->quirk_ignore_data_inhibit = true; }")
anchor(stock_c, 'if (of_device_is_compatible(np, "fsl,p2020-esdhc")) { '
       "esdhc->quirk_delay_before_data_reset = true; "
       "esdhc->quirk_trans_complete_erratum = true; }")
# the vendor version is read before the T4240 fix is set (raw)
anchor(stock_c, "esdhc->vendor_ver = (host_ver & SDHCI_VENDOR_VER_MASK) >> "
       "SDHCI_VENDOR_VER_SHIFT; esdhc->spec_ver = host_ver & SDHCI_SPEC_VER_MASK; "
       "if (soc_device_match(soc_incorrect_hostver)) "
       "esdhc->quirk_incorrect_hostver = true;")
anchor(stock_c, 'static struct soc_device_attribute soc_incorrect_hostver[] = { '
       '{ .family = "QorIQ T4240", .revision = "1.0", }, '
       '{ .family = "QorIQ T4240", .revision = "2.0", },')
anchor(stock_c, 'static struct soc_device_attribute soc_tuning_erratum_type1[] = { '
       '{ .family = "QorIQ T1023", }, { .family = "QorIQ T1040", }, '
       '{ .family = "QorIQ T2080", }, { .family = "QorIQ LS1021A", },')
# ADMA2 from 2.3 on (esdhc_readl_fixup), the ADMA gap erratum on 2.3
anchor(stock_c, "if (esdhc->vendor_ver > VENDOR_V_22) { ret = value | SDHCI_CAN_DO_ADMA2;")
anchor(stock_c, "(esdhc->vendor_ver == VENDOR_V_23);")
# the library's part (sdhci_get_property(), sdhci_get_compatibility())
anchor(pltfm_c, 'if (device_property_present(dev, "sdhci,auto-cmd12")) '
       "host->quirks |= SDHCI_QUIRK_MULTIBLOCK_READ_ACMD12;")
anchor(pltfm_c, 'if (device_property_present(dev, "broken-cd")) '
       "host->quirks |= SDHCI_QUIRK_BROKEN_CARD_DETECTION;")
# (6.12 asks device_is_compatible(), the same test through the fwnode)
anchor(pltfm_c, 'if (of_device_is_compatible(np, "fsl,p2020-rev1-esdhc")) '
       "host->quirks |= SDHCI_QUIRK_BROKEN_DMA;",
       'if (device_is_compatible(dev, "fsl,p2020-rev1-esdhc")) '
       "host->quirks |= SDHCI_QUIRK_BROKEN_DMA;")
TIMEOUT_COMPAT = ["fsl,p2020-esdhc", "fsl,p1010-esdhc", "fsl,t4240-esdhc",
                  "fsl,mpc8536-esdhc"]
anchor(pltfm_c, *(" ||".join(f' {fn}"{c}")' for c in TIMEOUT_COMPAT).strip()
                 + ") host->quirks |= SDHCI_QUIRK_BROKEN_TIMEOUT_VAL;"
                 for fn in ("of_device_is_compatible(np, ", "device_is_compatible(dev, ")))
# fsl_guts: family "QorIQ <die>" from the SVR, revision "major.minor"
guts = read(os.path.join(tree, "drivers/soc/fsl/guts.c"))
DIES = [(d, int(s, 16), int(m, 16)) for d, s, m in re.findall(
    r'\.die\s*=\s*"(\w+)",\s*\.svr\s*=\s*(0x[0-9a-fA-F]+),\s*\.mask\s*=\s*(0x[0-9a-fA-F]+)',
    guts)]
if not DIES:
    anchors_bad.append("drivers/soc/fsl/guts.c: no die table")

DEFAULT_QUIRKS = macro_quirks(os.path.join(host_dir, "sdhci-esdhc.h"),
                              "ESDHC_DEFAULT_QUIRKS")
OUR_BASE = macro_quirks(os.path.join(args.ours, "sdhci-esdhc-e500-of.c"),
                        "ESDHC_OF_QUIRKS")


def of_table(text, name, symbols=None):
    """the compatibles of 'struct of_device_id NAME[]'; its '#ifdef
    CONFIG_X' entries kept only where X is in SYMBOLS (None: all kept)"""
    m = re.search(r"of_device_id\s+" + name + r"\s*\[\]\s*=\s*\{(.*?)\n\};", text, re.S)
    if not m:
        return None
    body = m.group(1)
    if symbols is not None:
        body = re.sub(r"#ifdef CONFIG_(\w+)(.*?)#endif",
                      lambda g: g.group(2) if g.group(1) in symbols else "",
                      body, flags=re.S)
    return re.findall(r'\.compatible\s*=\s*"([^"]+)"', body)


OUR_SRC = read(os.path.join(args.ours, "sdhci-esdhc-e500-of.c"))
STOCK = of_table(read(stock_c), "sdhci_esdhc_of_match")

# --- the kernels: processor types, and what ours depends on ---------------

cputype = read(os.path.join(tree, "arch/powerpc/platforms/Kconfig.cputype"))


def selects(sym):
    """SYM and what its Kconfig.cputype entry selects"""
    m = re.search(r"^config " + sym + r"\n(.*?)(?=^\S)", cputype, re.S | re.M)
    return {sym} | set(re.findall(r"^\s+select (\w+)", m.group(1), re.M)) if m else {sym}


# a board's kernels: a 32-bit e500 one, a 64-bit one, or another core's
KERNELS = {"ppc32": selects("PPC_85xx"), "ppc64": selects("PPC_BOOK3E_64"),
           "other": selects("PPC_BOOK3S_32")}
for k, sym in (("ppc32", "PPC_85xx"), ("ppc64", "PPC_BOOK3E_64")):
    if "PPC_E500" not in KERNELS[k]:
        anchors_bad.append(f"Kconfig.cputype: {sym} does not select PPC_E500")
m = re.search(r"config MMC_SDHCI_ESDHC_E500\n(.*?)(?=^\S)",
              read(os.path.join(args.ours, "Kconfig")), re.S | re.M)
OUR_DEPS = [set(re.findall(r"\w+", d)) - {"COMPILE_TEST"}
            for d in re.findall(r"^\s+depends on (.*)$", m.group(1), re.M)
            if "COMPILE_TEST" in d and "!" not in d] if m else []


def ours_built(kernel):
    """does our Kconfig let KERNEL build ours without COMPILE_TEST?"""
    return bool(OUR_DEPS) and all(d & KERNELS[kernel] for d in OUR_DEPS)


def board_kernels(cores):
    """the kernels that run a board with these /cpus node names"""
    if any(re.fullmatch(r"e(5500|6500)", c) for c in cores):
        return ["ppc32", "ppc64"]
    if any(re.fullmatch(r"e500(v1|v2|mc)?|85\d\d|P[12]\d{3}|BSC\d+|C29\d", c)
           for c in cores):
        return ["ppc32"]
    return ["other"]
# every other driver of the tree with an eSDHC entry in a match table
OTHERS = {}
for c in sorted(glob.glob(os.path.join(host_dir, "*.c"))):
    if os.path.basename(c) == "sdhci-of-esdhc.c":
        continue
    for tbl in re.findall(r"of_device_id\s+(\w+)\s*\[\]", read(c)):
        ent = of_table(read(c), tbl) or []
        if any("esdhc" in e for e in ent):
            OTHERS[os.path.basename(c)] = ent

# --- the device trees -------------------------------------------------------


def dtb_nodes(blob):
    """path -> {property: bytes} of a flattened device tree"""
    magic, _, off_struct, off_strings = struct.unpack_from(">IIII", blob, 0)
    assert magic == 0xD00DFEED
    nodes, path, pos = {}, [], off_struct
    while True:
        tok, = struct.unpack_from(">I", blob, pos)
        pos += 4
        if tok == 1:
            end = blob.index(b"\0", pos)
            path.append(blob[pos:end].decode())
            pos = (end + 4) & ~3
            nodes["/".join(path) or "/"] = {}
        elif tok == 3:
            ln, nameoff = struct.unpack_from(">II", blob, pos)
            pos += 8
            pname = blob[off_strings + nameoff:blob.index(b"\0", off_strings + nameoff)].decode()
            nodes["/".join(path) or "/"][pname] = blob[pos:pos + ln]
            pos = (pos + ln + 3) & ~3
        elif tok == 2:
            path.pop()
        elif tok == 4:
            continue
        elif tok == 9:
            return nodes


def strings(v):
    return [s.decode() for s in v.rstrip(b"\0").split(b"\0")] if v else []


def compile_dts(dts):
    base = os.path.relpath(dts, dts_dir).replace("/", "_")
    pre = os.path.join(args.scratch, base + ".pre")
    dtb = os.path.join(args.scratch, base[:-4] + ".dtb")
    inc = os.path.join(tree, "scripts/dtc/include-prefixes")
    subprocess.run(["gcc", "-E", "-nostdinc", "-I", inc, "-undef", "-D__DTS__",
                    "-x", "assembler-with-cpp", "-o", pre, dts], check=True,
                   stderr=subprocess.PIPE)
    subprocess.run([args.dtc, "-q", "-O", "dtb", "-o", dtb, "-b", "0",
                    "-i", os.path.dirname(dts), "-i", inc, "-p", "1024", pre],
                   check=True, stderr=subprocess.PIPE)
    with open(dtb, "rb") as f:
        return dtb_nodes(f.read())


mpc85xx = read(os.path.join(tree, "arch/powerpc/include/asm/mpc85xx.h"))
SVRS = {k.upper(): int(v, 16) for k, v in
        re.findall(r"#define\s+SVR_(\w+)\s+(0[xX][0-9a-fA-F]+)", mpc85xx)}


# SoCs without an SVR_ define have their die's (fsl_guts: "Die: X, SoC: A/B")
DIE_SOCS = {}
for die, socs in re.findall(r"/\* Die: (\w+), SoC: ([\w/]+) \*/", guts):
    for d, s, _ in DIES:
        if d == die:
            DIE_SOCS.update({x.upper(): s for x in socs.split("/")})


def soc_of(nodes, dts):
    """the SoC the tree names, by its guts node, else by the SoC's
    *si-post.dtsi that the board includes; and its SVR, less revision"""
    name = None
    for props in nodes.values():
        for c in strings(props.get("compatible")):
            m = re.fullmatch(r"fsl,(\w+?)-(?:guts|device-config)", c)
            if m and m.group(1) != "qoriq":
                name = name or m.group(1).upper()
    todo, seen = [dts], set()
    while name is None and todo:
        f = todo.pop()
        if f in seen or not os.path.exists(f):
            continue
        seen.add(f)
        for inc in re.findall(r'include[/]?\s+"([^"]+)"', read(f)):
            m = re.fullmatch(r"(?:.*/)?(\w+)si-post\.dtsi", inc)
            if m:
                name = m.group(1).upper()
            todo.append(os.path.join(os.path.dirname(f), inc))
    if name is None:
        return None, None
    key = re.sub(r"^(MPC|BSC)", "", name)
    if key in SVRS:
        return name, SVRS[key] << 8
    return name, DIE_SOCS.get(name)


rows = []
dts_dir = os.path.join(tree, "arch/powerpc/boot/dts")
os.makedirs(args.scratch, exist_ok=True)
for dts in sorted(glob.glob(os.path.join(dts_dir, "**", "*.dts"), recursive=True)):
    # the eSDHC nodes come from the SoC's dtsi (fsl/*si-post.dtsi)
    if not re.search(r'esdhc|include/?\s+"[^"]*si-post', read(dts)):
        continue
    board = os.path.relpath(dts, dts_dir)
    board = board[len("fsl/"):] if board.startswith("fsl/") else board
    try:
        nodes = compile_dts(dts)
    except subprocess.CalledProcessError as e:
        out("FAIL", f"compile/{board} {e.stderr.decode(errors='replace').strip()[:200]}")
        continue
    soc, svr = soc_of(nodes, dts)
    esdhc = [(p, props) for p, props in nodes.items()
             if any("esdhc" in c for c in strings(props.get("compatible")))]
    cores = [re.sub(r"^PowerPC,|@.*$", "", p.rsplit("/", 1)[-1])
             for p in nodes if re.fullmatch(r"/?cpus/[^/]+", p)]
    for path, props in esdhc:
        rows.append(dict(board=board, path=path, props=props, soc=soc, svr=svr,
                         kernels=board_kernels(cores), cores=sorted(set(cores)),
                         disabled=strings(props.get("status")) == ["disabled"],
                         compat=strings(props["compatible"]),
                         tree_compat={c for p in nodes.values()
                                      for c in strings(p.get("compatible"))}))

# the P2020 rev 1 variants of one P2020 board
for r in [r for r in rows if r["board"] == "p2020rdb.dts"]:
    for label, compat in (("rev1-first", ["fsl,p2020-rev1-esdhc", "fsl,p2020-esdhc", "fsl,esdhc"]),
                          ("rev1-last", ["fsl,p2020-esdhc", "fsl,p2020-rev1-esdhc", "fsl,esdhc"]),
                          ("rev1-only", ["fsl,p2020-rev1-esdhc", "fsl,esdhc"])):
        v = dict(r, board=f"p2020rdb.dts+{label}", compat=compat)
        v["tree_compat"] = (r["tree_compat"] - {"fsl,p2020-esdhc"}) | set(compat)
        rows.append(v)

# The SVR fallback: a node that names no part ("fsl,esdhc" alone, as
# QEMU's ppce500 and the P1021, B4 and BSC913x trees give it), on each SoC
# whose part has quirks of its own, in a tree where no node names a part.
# Stock matches by compatible only, so it gives such a node the family's
# defaults (shown in the table); ours takes the part from the SVR and must
# give exactly what stock gives a node that names it ("named").
for soc, part in (("MPC8536", "mpc8536"), ("P1010", "p1010"), ("P1020", "p1020"),
                  ("P2020", "p2020"), ("P4080", "p4080"), ("P5020", "p5020"),
                  ("P5040", "p5040"), ("T1040", "t1040"), ("T4240", "t4240")):
    key = re.sub(r"^MPC", "", soc)
    svr = SVRS[key] << 8 if key in SVRS else DIE_SOCS.get(soc)
    alone = ["fsl,esdhc"]
    named = [f"fsl,{part}-esdhc", "fsl,esdhc"]
    base = dict(path="/", props={}, soc=soc, svr=svr, disabled=False,
                kernels=["ppc32"], cores=["(SVR)"])
    rows.append(dict(base, board=f"svr-fallback {soc}", compat=alone,
                     tree_compat=set(alone),
                     named=dict(base, compat=named, tree_compat=set(named))))

# --- stock, modelled --------------------------------------------------------


def library(row):
    """sdhci_get_property() and sdhci_get_compatibility(): both drivers"""
    p, c = row["props"], row["compat"]
    quirks = quirks2 = 0
    if "sdhci,auto-cmd12" in p:
        quirks |= QUIRK["MULTIBLOCK_READ_ACMD12"]
    bw = p.get("bus-width")
    if "sdhci,1-bit-only" in p or (bw and struct.unpack(">I", bw[:4])[0] == 1):
        quirks |= QUIRK["FORCE_1_BIT_DATA"]
    if "sdhci,wp-inverted" in p or "wp-inverted" in p:
        quirks |= QUIRK["INVERTED_WRITE_PROTECT"]
    if "broken-cd" in p:
        quirks |= QUIRK["BROKEN_CARD_DETECTION"]
    if "no-1-8-v" in p:
        quirks2 |= QUIRK2["NO_1_8_V"]
    if "fsl,p2020-rev1-esdhc" in c:
        quirks |= QUIRK["BROKEN_DMA"]
    if any(x in c for x in TIMEOUT_COMPAT):
        quirks |= QUIRK["BROKEN_TIMEOUT_VAL"]
    return quirks, quirks2


def family(svr):
    for die, s, m in DIES:
        if svr & m == s:
            return "QorIQ " + die
    return "QorIQ"


def of_match_node(table, compat):
    """of_match_node(): the entry of the node's earliest compatible"""
    for c in compat:
        if c in table:
            return c
    return None


def stock(row, svr, vendor):
    quirks, quirks2 = library(row)
    quirks |= DEFAULT_QUIRKS | q("BROKEN_CARD_DETECTION", "NO_CARD_NO_RESET",
                                 "NO_ENDATTR_IN_NOPDESC")
    c = row["compat"]
    fam, rev = family(svr), f"{(svr >> 4) & 0xf}.{svr & 0xf}"
    errata = set()
    if fam == "QorIQ T4240" and rev in ("1.0", "2.0"):
        errata.add("hostver-reads-2.3")
    if fam in ("QorIQ T1023", "QorIQ T1040", "QorIQ T2080"):
        errata.add("tuning-type1")
    if "fsl,p2020-esdhc" in c:
        errata |= {"p2020-dma-reset-delay", "p2020-early-data-end"}
    if vendor == 0x12:
        quirks2 |= QUIRK2["HOST_NO_CMD23"]
    if vendor > 0x12:
        quirks &= ~QUIRK["NO_BUSY_IRQ"]
        errata.add("adma2")
    if vendor == 0x13:
        errata.add("adma-gap")
    if "fsl,p2020-esdhc" in row["tree_compat"]:
        quirks |= q("RESET_AFTER_REQUEST", "BROKEN_TIMEOUT_VAL")
    if any(x in c for x in CD_WORKS):
        quirks &= ~QUIRK["BROKEN_CARD_DETECTION"]
    if "fsl,p2020-esdhc" in c:
        quirks2 |= QUIRK2["BROKEN_HOST_CONTROL"]
        errata.add("ignore-data-inhibit")
    if of_match_node(STOCK, c) == "fsl,p1010-esdhc":
        errata.add("p1010-clock-caps")
    return quirks, quirks2, errata


# --- ours, run ---------------------------------------------------------------

harness = subprocess.Popen([args.host], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           text=True)


def ours(row, svr, vendor):
    quirks, quirks2 = library(row)
    quirks |= OUR_BASE
    harness.stdin.write(f"{svr:x} {vendor:x} {quirks:x} {quirks2:x} {' '.join(row['compat'])}\n")
    harness.stdin.flush()
    qs, q2s, io, fl, clk = harness.stdout.readline().split()
    quirks, quirks2, io, fl = int(qs, 16), int(q2s, 16), int(io, 16), int(fl, 16)
    errata = set()
    for bit, name in (("HOSTVER_V23", "hostver-reads-2.3"), ("ADMA2", "adma2"),
                      ("ADMA_GAP", "adma-gap"),
                      ("IGNORE_DATA_INHIBIT", "ignore-data-inhibit")):
        if io & IO["ESDHC_IO_" + bit]:
            errata.add(name)
    for bit, name in (("DMA_RESET_DELAY", "p2020-dma-reset-delay"),
                      ("EARLY_DATA_END", "p2020-early-data-end")):
        if fl & SOCF["ESDHC_SOC_" + bit]:
            errata.add(name)
    if clk == "1":
        errata.add("p1010-clock-caps")
    # the host control byte: stock's quirk, our register layer's switch
    if bool(io & IO["ESDHC_IO_HOSTCTL_WIDTH_ONLY"]) != bool(quirks2 & QUIRK2["BROKEN_HOST_CONTROL"]):
        errata.add("hostctl-switch-without-quirk2")
    return quirks, quirks2, errata


# Ours only, on purpose: the library takes the maximum clock from the
# driver (esdhc-soc.c). Stock only, not applicable: its tuning erratum
# (ours offers no mode that tunes: no SDR50/SDR104, CAPABILITIES_1 reads 0,
# and HS200/HS400 only from properties that no node has; checked below).
OURS_ONLY = QUIRK["CAP_CLOCK_BASE_BROKEN"]
STOCK_ONLY_ERRATA = {"tuning-type1"}
TUNED = ("mmc-hs200-1_8v", "mmc-hs200-1_2v", "mmc-hs400-1_8v", "mmc-hs400-1_2v")

# P1010's SD clock ceilings: ours (esdhc-clk.c) against stock's clock fixup
m_ours = re.search(r"esdhc_clk_caps_p1010\s*=\s*\{(.*?)\};",
                   read(os.path.join(args.ours, "esdhc-clk.c")), re.S)
m_stock = re.search(r"esdhc_clk_fixup\s+p1010_esdhc_clk\s*=\s*\{(.*?)\};",
                    read(stock_c), re.S)
if not m_ours or not m_stock:
    out("FAIL", "p1010_clock_ceilings the table of ours or of stock not found")
else:
    ov = dict(re.findall(r"\.(\w+)\s*=\s*(\d+)", m_ours.group(1)))
    sv = dict(re.findall(r"\.(\w+(?:\[\w+\])?)\s*=\s*(\d+)", m_stock.group(1)))
    pairs = (("sd_default", "sd_dflt_max_clk"), ("legacy", "max_clk[MMC_TIMING_LEGACY]"),
             ("mmc_hs", "max_clk[MMC_TIMING_MMC_HS]"), ("sd_hs", "max_clk[MMC_TIMING_SD_HS]"))
    bad = [f"{o} {ov.get(o)} Hz, stock {st} {sv.get(st)}" for o, st in pairs
           if ov.get(o) is None or ov.get(o) != sv.get(st)]
    if bad or set(sv) != {st for _, st in pairs}:
        out("FAIL", "p1010_clock_ceilings " + ("; ".join(bad) or f"stock sets {sorted(sv)}"))
    else:
        out("PASS", "p1010_clock_ceilings")

if anchors_bad:
    for a in anchors_bad:
        out("DIAG", f"anchor not in the tree: {a}")
    out("FAIL", f"stock_model_anchors {len(anchors_bad)} fact(s) of the model not in {tree}")
else:
    out("PASS", "stock_model_anchors")
if of_table(OUR_SRC, "esdhc_of_match") is None or STOCK is None:
    out("FAIL", "match_tables could not read our or stock's of_device_id table")
    sys.exit(1)
if not OUR_DEPS:
    out("FAIL", "our_kconfig no 'depends on ... || COMPILE_TEST' for MMC_SDHCI_ESDHC_E500")
    sys.exit(1)
out("DIAG", f"ours depends on {OUR_DEPS} (built: " + ", ".join(
    f"{k} {'yes' if ours_built(k) else 'no'}" for k in KERNELS) + f"); ours matches "
    f"{of_table(OUR_SRC, 'esdhc_of_match')}; stock matches {STOCK}; others with "
    f"eSDHC entries: { {k: v for k, v in OTHERS.items()} }")

table = []
for row in rows:
    c = row["compat"]
    e500 = row["kernels"] != ["other"]
    why = []
    if e500 and row["svr"] is None:
        why.append("no SoC named by a guts node")
    others = [d for d, ent in OTHERS.items() if of_match_node(ent, c)]
    bound_stock = (["stock"] if of_match_node(STOCK, c) else []) + others
    if len(bound_stock) != 1:
        why.append(f"with stock {len(bound_stock)} drivers bind ({bound_stock})")
    binds = []
    for k in row["kernels"]:
        built = ours_built(k)
        if e500 and not built:
            why.append(f"ours is not built in a {k} kernel of this e500 board")
        if not e500 and built:
            why.append(f"ours is built in a kernel for cores {row['cores']}")
        if not built:
            binds.append(f"{k}: ours not built")
            continue
        table_k = of_table(OUR_SRC, "esdhc_of_match", KERNELS[k])
        bound_ours = (["ours"] if of_match_node(table_k, c) else []) + others
        binds.append(f"{k}: {'+'.join(bound_ours) or 'none'}")
        if len(bound_ours) != 1:
            why.append(f"{k} with ours: {len(bound_ours)} drivers bind ({bound_ours})")
    if any(t in row["props"] for t in TUNED):
        why.append("a mode that tunes is enabled on the node")
    shown = None
    for rev in (0x10, 0x20, 0x30):
        for vendor in (0x00, 0x12, 0x13):
            if row["svr"] is None or not e500:
                break
            svr = row["svr"] | rev
            sq, sq2, se = stock(row.get("named", row), svr, vendor)
            oq, oq2, oe = ours(row, svr, vendor)
            # HOSTVER's vendor field: 0x12 is version 2.2
            at = f"rev {rev >> 4}.{rev & 0xf} vendor {(vendor >> 4) + (vendor > 0)}.{vendor & 0xf}"
            if oq & ~OURS_ONLY != sq & ~OURS_ONLY:
                why.append(f"{at}: quirks ours-stock +{names(oq & ~sq & ~OURS_ONLY, QUIRK)} "
                           f"-{names(sq & ~oq, QUIRK)}")
            if oq2 != sq2:
                why.append(f"{at}: quirks2 ours-stock +{names(oq2 & ~sq2, QUIRK2)} "
                           f"-{names(sq2 & ~oq2, QUIRK2)}")
            if oe != se - STOCK_ONLY_ERRATA:
                why.append(f"{at}: errata ours {sorted(oe)} stock {sorted(se)}")
            if rev == 0x20 and vendor == 0x12:
                # for the SVR fallback: what stock gives the node itself
                shown = stock(row, svr, vendor) if "named" in row else (sq, sq2, se)
    if why:
        out("FAIL", f"{row['board']} {'; '.join(why[:3])}")
    else:
        out("PASS", row["board"])
    base = DEFAULT_QUIRKS | q("NO_CARD_NO_RESET", "NO_ENDATTR_IN_NOPDESC")
    sq, sq2, se = shown if shown else (None, None, None)
    table.append("| {} | {} | {} | {} | {} | {} | {} | {} |".format(
        row["board"] + (" (disabled)" if row["disabled"] else ""),
        f"{row['soc']} ({row['svr'] >> 8:06x})" if row["svr"] is not None else (row["soc"] or "-"),
        " ".join(row["cores"]), ", ".join(f"`{x}`" for x in c),
        "; ".join(binds) + f" / {'+'.join(bound_stock) or 'none'}",
        (" ".join(names(sq & ~base, QUIRK)) or "-") if shown else "not compared",
        (" ".join(names(sq2, QUIRK2)) or "-") if shown else "-",
        (" ".join(sorted(se)) or "-") if shown else "-"))
harness.stdin.close()
harness.wait()

with open(args.table, "w") as f:
    f.write("| board | SoC (SVR) | /cpus | compatible | binds, per kernel: ours configured "
            "/ stock configured | quirks beyond the base | quirks2 | errata |\n")
    f.write("|---|---|---|---|---|---|---|---|\n")
    f.write("\n".join(table) + "\n")
out("DIAG", f"{len(rows)} eSDHC nodes; table in {args.table}")
