#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Turns Wayland protocol XML files into the message tables of protocol/wire.h.

    ivwl-scanner.py --c OUT.c --h OUT.h PROTOCOL.xml...

Every file is read before anything is written, so an argument may name an
interface of another file; a name that no file defines is an error, since
the walker could not follow traffic on such an object.

A new_id argument without an interface (wl_registry.bind) is written as
the three values it has on the wire: the interface name, its version and
the id ("sun").
"""

import argparse
import os
import sys
import xml.etree.ElementTree as ET

MAX_ARGS = 20

ARG_CODES = {
    "int": "i",
    "uint": "u",
    "fixed": "f",
    "string": "s",
    "object": "o",
    "new_id": "n",
    "array": "a",
    "fd": "h",
}


class ScanError(Exception):
    pass


class Arg:
    def __init__(self, code, interface=None, nullable=False, enum=None):
        self.code = code
        self.interface = interface
        self.nullable = nullable
        self.enum = enum        # "iface.name" once resolved, or None


class Message:
    def __init__(self, name, since, destructor, args):
        self.name = name
        self.since = since
        self.destructor = destructor
        self.args = args


class Enum:
    def __init__(self, name, bitfield, values):
        self.name = name
        self.bitfield = bitfield
        self.values = values


class Interface:
    def __init__(self, name, version, requests, events, enums, source):
        self.name = name
        self.version = version
        self.requests = requests
        self.events = events
        self.enums = enums
        self.source = source


def parse_int(text, what):
    try:
        value = int(text, 0)
    except (TypeError, ValueError):
        raise ScanError(f"{what}: not a number: {text!r}")
    if value < 1 or value > 0xFFFF:
        raise ScanError(f"{what}: out of range: {value}")
    return value


def parse_arg(node, where):
    kind = node.get("type")
    if kind not in ARG_CODES:
        raise ScanError(f"{where}: unknown argument type {kind!r}")
    nullable = node.get("allow-null") == "true"
    if nullable and kind not in ("string", "object", "new_id", "array"):
        raise ScanError(f"{where}: allow-null on a {kind}")
    interface = node.get("interface")
    if kind == "new_id" and interface is None:
        # the wire carries the interface and version before the id
        return [Arg("s"), Arg("u"), Arg("n", None, nullable)]
    if kind not in ("object", "new_id"):
        interface = None
    enum = node.get("enum")
    if enum is not None and kind not in ("int", "uint"):
        raise ScanError(f"{where}: enum on a {kind}")
    return [Arg(ARG_CODES[kind], interface, nullable, enum)]


def parse_enum(node, where):
    name = node.get("name")
    if not name or not c_string_ok(name):
        raise ScanError(f"{where}: bad enum name {name!r}")
    values = []
    for entry in node.findall("entry"):
        try:
            values.append(int(entry.get("value"), 0) & 0xFFFFFFFF)
        except (TypeError, ValueError):
            raise ScanError(f"{where}.{name}: bad value "
                            f"{entry.get('value')!r}")
    return Enum(name, node.get("bitfield") == "true", values)


def parse_message(node, iface_name, iface_version, where):
    name = node.get("name")
    if not name:
        raise ScanError(f"{where}: message without a name")
    where = f"{where}.{name}"
    since = 1
    if node.get("since") is not None:
        since = parse_int(node.get("since"), f"{where} since")
    if since > iface_version:
        raise ScanError(f"{where}: since {since} > interface version")
    args = []
    for arg in node.findall("arg"):
        args += parse_arg(arg, f"{where}({arg.get('name')})")
    if len(args) > MAX_ARGS:
        raise ScanError(f"{where}: {len(args)} arguments, at most {MAX_ARGS}")
    return Message(name, since, node.get("type") == "destructor", args)


def parse_file(path):
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        raise ScanError(f"{path}: {e}")
    if root.tag != "protocol":
        raise ScanError(f"{path}: not a protocol file")
    interfaces = []
    for node in root.findall("interface"):
        name = node.get("name")
        if not name or not name.replace("_", "").isalnum():
            raise ScanError(f"{path}: bad interface name {name!r}")
        version = parse_int(node.get("version"), f"{name} version")
        where = f"{os.path.basename(path)}: {name}"
        requests = [parse_message(m, name, version, where)
                    for m in node.findall("request")]
        events = [parse_message(m, name, version, where)
                  for m in node.findall("event")]
        enums = {e.name: e for e in (parse_enum(n, where)
                                     for n in node.findall("enum"))}
        interfaces.append(Interface(name, version, requests, events, enums,
                                    path))
    return interfaces


def check_references(interfaces):
    """Every interface an argument names exists; enum references become
    "interface.enum" and must name an enum of some input file."""
    known = {i.name: i for i in interfaces}
    for iface in interfaces:
        for msg in iface.requests + iface.events:
            for arg in msg.args:
                if arg.interface is not None and arg.interface not in known:
                    raise ScanError(f"{iface.name}.{msg.name}: interface "
                                    f"{arg.interface} is in no input file")
                if arg.enum is None:
                    continue
                owner, _, enum = arg.enum.rpartition(".")
                owner = owner or iface.name
                if owner not in known or enum not in known[owner].enums:
                    raise ScanError(f"{iface.name}.{msg.name}: enum "
                                    f"{arg.enum} is in no input file")
                arg.enum = f"{owner}.{enum}"


def c_string_ok(name):
    return name.replace("_", "").isalnum()


def emit_header(out, interfaces):
    w = out.write
    w("/* Generated by ivwl-scanner.py from Wayland protocol XML. */\n")
    w("#ifndef IVWL_PROTOCOLS_H\n#define IVWL_PROTOCOLS_H\n\n")
    w('#include "wire.h"\n\n')
    w("/* Indices into ivwl_interfaces[], sorted by name. */\n")
    w("enum ivwl_interface_index {\n")
    for n, iface in enumerate(interfaces):
        w(f"\tIVWL_IFACE_{iface.name.upper()} = {n},\n")
    w(f"\tIVWL_IFACE_COUNT = {len(interfaces)},\n}};\n\n")
    w("extern const struct ivwl_interface *const "
      "ivwl_interfaces[IVWL_IFACE_COUNT];\n\n")
    for iface in interfaces:
        w(f"extern const struct ivwl_interface ivwl_iface_{iface.name};\n")
    w("\n")
    for iface in interfaces:
        for prefix, msgs in (("REQ", iface.requests), ("EVT", iface.events)):
            for op, msg in enumerate(msgs):
                w(f"#define IVWL_{prefix}_{iface.name.upper()}_"
                  f"{msg.name.upper()} {op}\n")
    w("\n#endif\n")


def enum_symbol(ref):
    return "ivwl_enum_" + ref.replace(".", "__")


def emit_enums(w, iface, used):
    for name, enum in sorted(iface.enums.items()):
        if f"{iface.name}.{name}" not in used:
            continue
        sym = enum_symbol(f"{iface.name}.{name}")
        mask = 0
        for v in enum.values:
            mask |= v
        values = ", ".join(f"0x{v:x}u" for v in enum.values)
        w(f"static const uint32_t {sym}_values[] = {{ {values} }};\n")
        w(f"static const struct ivwl_enum {sym} = {{\n")
        w(f'\t.name = "{iface.name}.{name}",\n')
        w(f"\t.bitfield = {'true' if enum.bitfield else 'false'},\n")
        w(f"\t.mask = 0x{mask:x}u,\n")
        w(f"\t.count = {len(enum.values)},\n")
        w(f"\t.values = {sym}_values,\n}};\n\n")


def emit_message_array(w, iface, kind, msgs):
    for msg in msgs:
        if any(a.enum for a in msg.args):
            w(f"static const struct ivwl_enum *const "
              f"{kind}_enums_{iface.name}__{msg.name}[] = {{\n")
            for a in msg.args:
                w(f"\t&{enum_symbol(a.enum)},\n" if a.enum else "\tNULL,\n")
            w("};\n\n")
    for msg in msgs:
        if any(a.interface for a in msg.args):
            w(f"static const struct ivwl_interface *const "
              f"{kind}_types_{iface.name}__{msg.name}[] = {{\n")
            for a in msg.args:
                if a.interface:
                    w(f"\t&ivwl_iface_{a.interface},\n")
                else:
                    w("\tNULL,\n")
            w("};\n\n")
    if not msgs:
        return
    w(f"static const struct ivwl_message {kind}s_{iface.name}[] = {{\n")
    for msg in msgs:
        sig = "".join(a.code for a in msg.args)
        nullable = 0
        for n, a in enumerate(msg.args):
            if a.nullable:
                nullable |= 1 << n
        types = "NULL"
        if any(a.interface for a in msg.args):
            types = f"{kind}_types_{iface.name}__{msg.name}"
        enums = "NULL"
        if any(a.enum for a in msg.args):
            enums = f"{kind}_enums_{iface.name}__{msg.name}"
        flags = "IVWL_MESSAGE_DESTRUCTOR" if msg.destructor else "0"
        w(f'\t{{ .name = "{msg.name}", .signature = "{sig}", '
          f".types = {types}, .enums = {enums},\n")
        w(f"\t  .nullable = 0x{nullable:x}u, .since = {msg.since}, "
          f".nargs = {len(msg.args)}, .flags = {flags} }},\n")
    w("};\n\n")


def emit_source(out, interfaces):
    w = out.write
    w("/* Generated by ivwl-scanner.py from Wayland protocol XML. */\n")
    w("#include <stddef.h>\n\n")
    w('#include "ivwl-protocols.h"\n\n')
    # enums first, those an argument names: a message may name another
    # interface's enum
    used = {a.enum for i in interfaces for m in i.requests + i.events
            for a in m.args if a.enum}
    for iface in interfaces:
        emit_enums(w, iface, used)
    for iface in interfaces:
        w(f"/* {iface.name}, from {os.path.basename(iface.source)} */\n\n")
        emit_message_array(w, iface, "request", iface.requests)
        emit_message_array(w, iface, "event", iface.events)
        reqs = f"requests_{iface.name}" if iface.requests else "NULL"
        evts = f"events_{iface.name}" if iface.events else "NULL"
        w(f"const struct ivwl_interface ivwl_iface_{iface.name} = {{\n")
        w(f'\t.name = "{iface.name}",\n')
        w(f"\t.version = {iface.version},\n")
        w(f"\t.index = IVWL_IFACE_{iface.name.upper()},\n")
        w(f"\t.request_count = {len(iface.requests)},\n")
        w(f"\t.requests = {reqs},\n")
        w(f"\t.event_count = {len(iface.events)},\n")
        w(f"\t.events = {evts},\n}};\n\n")
    w("const struct ivwl_interface *const "
      "ivwl_interfaces[IVWL_IFACE_COUNT] = {\n")
    for iface in interfaces:
        w(f"\t&ivwl_iface_{iface.name},\n")
    w("};\n")


def check_names(interfaces):
    seen = {}
    macros = {}
    for iface in interfaces:
        if iface.name in seen:
            raise ScanError(f"{iface.name} defined in {seen[iface.name]} "
                            f"and {iface.source}")
        seen[iface.name] = iface.source
        for kind, msgs in (("request", iface.requests),
                           ("event", iface.events)):
            names = set()
            for msg in msgs:
                if not c_string_ok(msg.name) or msg.name in names:
                    raise ScanError(f"{iface.name}: bad or repeated {kind} "
                                    f"name {msg.name!r}")
                names.add(msg.name)
                macro = f"{kind}_{iface.name}_{msg.name}".upper()
                if macro in macros:
                    raise ScanError(f"{iface.name}.{msg.name} and "
                                    f"{macros[macro]} share one opcode name")
                macros[macro] = f"{iface.name}.{msg.name}"
            if len(msgs) > 0xFFFF:
                raise ScanError(f"{iface.name}: too many {kind}s")


def write_atomically(path, emit, interfaces):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as out:
        emit(out, interfaces)
    os.replace(tmp, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--c", required=True, help="C source to write")
    parser.add_argument("--h", required=True, help="C header to write")
    parser.add_argument("xml", nargs="+", help="protocol XML files")
    opts = parser.parse_args()

    try:
        interfaces = []
        for path in opts.xml:
            interfaces += parse_file(path)
        interfaces.sort(key=lambda i: i.name)
        check_names(interfaces)
        check_references(interfaces)
        if len(interfaces) > 0xFFFF:
            raise ScanError("too many interfaces")
        write_atomically(opts.h, emit_header, interfaces)
        write_atomically(opts.c, emit_source, interfaces)
    except ScanError as e:
        print(f"ivwl-scanner: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
