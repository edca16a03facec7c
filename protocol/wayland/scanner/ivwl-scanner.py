#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Turns protocol descriptors and Wayland protocol XML into wire.h's tables.

    ivwl-scanner.py --wayland-dir DIR --protocols-dir DIR
                    [--c OUT.c --h OUT.h --dispatch OUT.c]
                    [--xml-list] [--all-in DIR]
                    [--doc FILE (--check | --write) --limits HEADER]
                    [--man weston-ivwl.7] DESCRIPTOR.toml...

A descriptor (protocol/wayland/descriptors/NAME.toml) is the one place that says
what ivwl does with each interface of one protocol XML: whether a VM sees
its global by default (global = "allow", "deny" or "never"), whether its
objects are made again after a compositor restart (replay), which
requests the display-side firewall has rules for (rules), which of its
times the relay translates (time: the events and requests that carry
one, or "global" for a global hidden until its times can be trusted),
which budgets of ivwl-limits.h bound it (budgets) and why (why, the docs
row).  Every interface of the XML needs one; a descriptor without xml
names globals that no VM ever sees and the firewall never has to follow.
A descriptor whose XML only newer releases install says so at its top
(since = "wayland-protocols 1.38"): where that file is missing, its
globals are never offered, as if they were "never", and its interfaces
are in no table (IVWL_HAVE_<INTERFACE> is defined for those that are).

--xml-list prints the XML files the descriptors name, for meson;
--all-in fails when a descriptor of DIR is not among those given;
--doc checks (or writes) the table of docs/protocols.md between its
markers; --man checks weston-ivwl(7)'s lists of globals.

Every file is read before anything is written, so an argument may name an
interface of another file; a name that no file defines is an error, since
the walker could not follow traffic on such an object.

Per message, the header also has IVWL_MSG_REQ_<IFACE>_<NAME> (its table
entry, for ivwl_wire_write_msg) and, when it has arguments, a struct
ivwl_req_<iface>_<name> (ivwl_evt_ for events) with a field named after
each argument, filled by ivwl_req_<iface>_<name>_decode() from a message
ivwl_wire_parse split: code reads arguments by name, never by position.

A new_id argument without an interface (wl_registry.bind) is written as
the three values it has on the wire: the interface name, its version and
the id ("sun"); its fields are NAME_interface, NAME_version and NAME.
An argument named after a C keyword gets a "_" after it.
"""

import argparse
import os
import re
import sys
import tomllib
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


# argument names that become struct fields: a C keyword gets a "_"
C_KEYWORDS = {
    "auto", "break", "case", "char", "const", "continue", "default", "do",
    "double", "else", "enum", "extern", "float", "for", "goto", "if",
    "inline", "int", "long", "register", "restrict", "return", "short",
    "signed", "sizeof", "static", "struct", "switch", "typedef", "union",
    "unsigned", "void", "volatile", "while",
}


class ScanError(Exception):
    pass


class Arg:
    def __init__(self, name, code, interface=None, nullable=False,
                 enum=None):
        self.name = name        # its field in the message's decode struct
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
        self.ruled = False      # request: the firewall has a rule
        self.timed = False      # the relay translates its times


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
        self.desc = None        # its Descriptor entry, once matched


GLOBAL_POLICIES = {
    None: "IVWL_GLOBAL_NONE",
    "allow": "IVWL_GLOBAL_ALLOW",
    "deny": "IVWL_GLOBAL_DENY",
    "never": "IVWL_GLOBAL_NEVER",
}
DESC_KEYS = {"version", "global", "replay", "rules", "time", "budgets",
             "why", "since"}


class Entry:
    """What one descriptor says of one interface."""

    def __init__(self, name, table, path):
        where = f"{path}: [{name}]"
        unknown = set(table) - DESC_KEYS
        if unknown:
            raise ScanError(f"{where}: unknown keys {sorted(unknown)}")
        self.name = name
        self.path = path
        # the highest version its rules were reviewed for: a newer XML's
        # interface is taken at this version, never above
        self.version = table.get("version")
        if self.version is not None and (
                not isinstance(self.version, int) or self.version < 1):
            raise ScanError(f"{where}: version must be a positive integer")
        self.glob = table.get("global")
        if self.glob not in GLOBAL_POLICIES:
            raise ScanError(f"{where}: global must be allow, deny or never")
        self.replay = table.get("replay", False)
        if not isinstance(self.replay, bool):
            raise ScanError(f"{where}: replay must be true or false")
        self.rules = self.strings(table, "rules", where)
        self.time = self.strings(table, "time", where)
        self.budgets = self.strings(table, "budgets", where)
        # the release of its XML that brought it: an older XML without
        # it is no error (a global never offered stays named, private)
        self.since = table.get("since")
        if self.since is not None and (not isinstance(self.since, str) or
                                       self.glob != "never"):
            raise ScanError(f"{where}: since is a release, for a global "
                            "never offered")
        self.why = table.get("why", "")
        if not isinstance(self.why, str):
            raise ScanError(f"{where}: why must be a string")
        if self.glob and not self.why:
            raise ScanError(f"{where}: a global needs its why")
        for b in self.budgets:
            if not re.fullmatch(r"IVWL_[A-Z0-9_]+", b):
                raise ScanError(f"{where}: budget {b!r} is no IVWL_ name")

    @staticmethod
    def strings(table, key, where):
        value = table.get(key, [])
        if not isinstance(value, list) or \
           not all(isinstance(v, str) for v in value):
            raise ScanError(f"{where}: {key} must be a list of strings")
        if len(set(value)) != len(value):
            raise ScanError(f"{where}: {key} names one thing twice")
        return value


class Descriptor:
    def __init__(self, path):
        try:
            with open(path, "rb") as f:
                data = tomllib.load(f)
        except (OSError, tomllib.TOMLDecodeError) as e:
            raise ScanError(f"{path}: {e}")
        self.path = path
        self.xml = data.pop("xml", None)
        # the release of the XML that brought it: where an older one
        # has no such file, its globals are never offered
        self.since = data.pop("since", None)
        if self.since is not None and (not isinstance(self.since, str) or
                                       self.xml is None):
            raise ScanError(f"{path}: since is the release of its xml")
        self.absent = False
        if self.xml is not None and (not isinstance(self.xml, str) or
                                     ":" not in self.xml):
            raise ScanError(f"{path}: xml must be \"wayland:FILE\" or "
                            "\"wayland-protocols:FILE\"")
        self.entries = []
        for name, table in data.items():
            if not isinstance(table, dict):
                raise ScanError(f"{path}: {name} is not a [table]")
            self.entries.append(Entry(name, table, path))
        if self.xml is None and any(e.glob != "never"
                                    for e in self.entries):
            raise ScanError(f"{path}: without xml only never-globals")

    def xml_path(self, opts):
        base, _, rel = self.xml.partition(":")
        dirs = {"wayland": opts.wayland_dir,
                "wayland-protocols": opts.protocols_dir}
        if base not in dirs:
            raise ScanError(f"{self.path}: unknown XML base {base!r}")
        path = os.path.join(dirs[base], rel)
        if self.since and not os.path.exists(path):
            self.absent = True
            return None
        return path


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
    name = node.get("name")
    if not name or not c_string_ok(name) or name[0].isdigit():
        raise ScanError(f"{where}: bad argument name {name!r}")
    if name in C_KEYWORDS:
        name += "_"
    interface = node.get("interface")
    if kind == "new_id" and interface is None:
        # the wire carries the interface and version before the id
        return [Arg(f"{name}_interface", "s"), Arg(f"{name}_version", "u"),
                Arg(name, "n", None, nullable)]
    if kind not in ("object", "new_id"):
        interface = None
    enum = node.get("enum")
    if enum is not None and kind not in ("int", "uint"):
        raise ScanError(f"{where}: enum on a {kind}")
    return [Arg(name, ARG_CODES[kind], interface, nullable, enum)]


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
    if len({a.name for a in args}) != len(args):
        raise ScanError(f"{where}: two arguments of one name")
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


def emit_header(out, interfaces, private):
    w = out.write
    w("/* Generated by ivwl-scanner.py from Wayland protocol XML. */\n")
    w("#ifndef IVWL_PROTOCOLS_H\n#define IVWL_PROTOCOLS_H\n\n")
    w("#include <string.h>\n\n")
    w('#include "wire.h"\n\n')
    w("/* Indices into ivwl_interfaces[], sorted by name. */\n")
    w("enum ivwl_interface_index {\n")
    for n, iface in enumerate(interfaces):
        w(f"\tIVWL_IFACE_{iface.name.upper()} = {n},\n")
    w(f"\tIVWL_IFACE_COUNT = {len(interfaces)},\n}};\n\n")
    w("/* Every interface in the tables: code of one whose XML may be "
      "missing\n * (a descriptor's since) stands under #ifdef "
      "IVWL_HAVE_<NAME>. */\n")
    for iface in interfaces:
        w(f"#define IVWL_HAVE_{iface.name.upper()} 1\n")
    w("\n")
    w("extern const struct ivwl_interface *const "
      "ivwl_interfaces[IVWL_IFACE_COUNT];\n\n")
    for iface in interfaces:
        w(f"extern const struct ivwl_interface ivwl_iface_{iface.name};\n")
    w("\n/* Globals no VM sees that have no XML here (descriptors). */\n")
    w(f"#define IVWL_PRIVATE_GLOBAL_COUNT {len(private)}\n")
    w("extern const char *const "
      "ivwl_private_globals[IVWL_PRIVATE_GLOBAL_COUNT];\n\n")
    for iface in interfaces:
        for prefix, msgs in (("REQ", iface.requests), ("EVT", iface.events)):
            for op, msg in enumerate(msgs):
                w(f"#define IVWL_{prefix}_{iface.name.upper()}_"
                  f"{msg.name.upper()} {op}\n")
    w("\n/*\n"
      " * Per message: IVWL_MSG_REQ_<IFACE>_<NAME> (and _EVT_) is its table\n"
      " * entry, for ivwl_wire_write_msg and to compare with\n"
      " * ivwl_wire_msg.message; a message with arguments has a struct\n"
      " * ivwl_req_<iface>_<name> (ivwl_evt_ for events) of them by name and\n"
      " * a decode function that fills it from a message ivwl_wire_parse\n"
      " * split.  Decoding another message fills it with zeros (NULL, fd\n"
      " * index -1) and returns false, so a caller may decode first and\n"
      " * ask which message it was by the result.  Arguments are read\n"
      " * only this way: by name, never by position.\n"
      " * A message with word arguments (i u f o n) also has a rewrite\n"
      " * function: it writes those fields of args back over bytes, the\n"
      " * message msg was parsed from (nothing for another message); its\n"
      " * strings, arrays and fds stay, so its size does too.\n"
      " */\n\n")
    w("static inline void\nivwl_msg_put_word(void *bytes, uint16_t offset, "
      "uint32_t v)\n{\n\tmemcpy((uint8_t *)bytes + offset, &v, "
      "sizeof(v));\n}\n\n")
    for iface in interfaces:
        for kind, msgs in (("request", iface.requests),
                           ("event", iface.events)):
            for op, msg in enumerate(msgs):
                emit_message_decl(w, iface, kind, op, msg)
    emit_handler_decls(w, interfaces)
    w("#endif\n")


def field_name(name):
    return name + "_" if name in C_KEYWORDS else name


def handler_type(iface, kind):
    return f"ivwl_{iface.name}_{kind}_handlers"


def emit_handler_decls(w, interfaces):
    w("/*\n"
      " * Handler tables: per interface, a struct\n"
      " * ivwl_<iface>_request_handlers (and _event_handlers) of one\n"
      " * function pointer per message, named after it, each taking the\n"
      " * message and its decoded arguments; and per direction a struct of\n"
      " * one table per interface.  ivwl_request_dispatch() calls the\n"
      " * handler of a message that ivwl_wire_parse split: its result, or 0\n"
      " * when the tables have none for it (a NULL table or function).\n"
      " * The dispatch is an object of its own in the library\n"
      " * (ivwl-dispatch.c): only programs that use it link it.\n"
      " */\n\n")
    for kind in ("request", "event"):
        for iface in interfaces:
            msgs = iface.requests if kind == "request" else iface.events
            if not msgs:
                continue
            w(f"struct {handler_type(iface, kind)} {{\n")
            for msg in msgs:
                w(f"\tint (*{field_name(msg.name)})(void *data, "
                  "const struct ivwl_wire_msg *msg")
                if msg.args:
                    w(f",\n\t\tconst struct {msg_symbol(iface, kind, msg)} "
                      "*args")
                w(");\n")
            w("};\n\n")
        w(f"struct ivwl_{kind}_handlers {{\n")
        for iface in interfaces:
            msgs = iface.requests if kind == "request" else iface.events
            if msgs:
                w(f"\tconst struct {handler_type(iface, kind)} "
                  f"*{iface.name};\n")
        w("};\n\n")
        w(f"int\nivwl_{kind}_dispatch(const struct ivwl_{kind}_handlers *h, "
          "void *data,\n\tconst struct ivwl_wire_msg *msg);\n\n")


def emit_dispatch(w, interfaces, kind):
    for iface in interfaces:
        msgs = iface.requests if kind == "request" else iface.events
        if not msgs:
            continue
        w(f"static int\ndispatch_{kind}_{iface.name}("
          f"const struct {handler_type(iface, kind)} *h,\n"
          "\tvoid *data, const struct ivwl_wire_msg *msg)\n{\n")
        w("\tswitch (msg->opcode) {\n")
        for msg in msgs:
            sym = msg_symbol(iface, kind, msg)
            fn = field_name(msg.name)
            w(f"\tcase {sym.upper()}: {{\n")
            if msg.args:
                w(f"\t\tstruct {sym} args;\n\n")
                w(f"\t\tif (!h->{fn} || !{sym}_decode(msg, &args))\n"
                  "\t\t\treturn 0;\n")
                w(f"\t\treturn h->{fn}(data, msg, &args);\n")
            else:
                w(f"\t\tif (!h->{fn} || msg->message != "
                  f"{sym.replace('ivwl_', 'IVWL_MSG_', 1).upper()})\n"
                  "\t\t\treturn 0;\n")
                w(f"\t\treturn h->{fn}(data, msg);\n")
            w("\t}\n")
        w("\tdefault:\n\t\treturn 0;\n\t}\n}\n\n")
    w(f"int\nivwl_{kind}_dispatch(const struct ivwl_{kind}_handlers *h, "
      "void *data,\n\tconst struct ivwl_wire_msg *msg)\n{\n")
    w("\tswitch (msg->iface->index) {\n")
    for iface in interfaces:
        msgs = iface.requests if kind == "request" else iface.events
        if not msgs:
            continue
        w(f"\tcase IVWL_IFACE_{iface.name.upper()}:\n")
        w(f"\t\treturn h->{iface.name} ? dispatch_{kind}_{iface.name}("
          f"h->{iface.name}, data, msg) : 0;\n")
    w("\tdefault:\n\t\treturn 0;\n\t}\n}\n\n")


# arguments of one word, which a rewrite can change in place
WORD_CODES = "iufon"

FIELD_TYPES = {
    "i": "int32_t ",
    "u": "uint32_t ",
    "f": "int32_t ",
    "s": "const char *",
    "o": "uint32_t ",
    "n": "uint32_t ",
    "a": "struct ivwl_wire_array ",
    "h": "int ",
}


def field_comment(arg):
    what = {
        "f": "wl_fixed_t (24.8)",
        "s": "NULL when null",
        "o": f"id of a {arg.interface or 'object'}",
        "n": f"new id of a {arg.interface or 'bound interface'}",
        "a": "contents in the message's bytes",
        "h": "index among the message's fds",
    }.get(arg.code)
    if what and arg.code in "o" and arg.nullable:
        what += ", 0 when null"
    if arg.enum:
        what = f"enum {arg.enum}"
    return f"\t/* {what} */" if what else ""


def msg_symbol(iface, kind, msg):
    return f"ivwl_{'req' if kind == 'request' else 'evt'}_" \
           f"{iface.name}_{msg.name}"


def emit_message_decl(w, iface, kind, op, msg):
    sym = msg_symbol(iface, kind, msg)
    w(f"/* {iface.name}.{msg.name}, {kind} {op} */\n")
    w(f"#define {sym.replace('ivwl_', 'IVWL_MSG_', 1).upper()} "
      f"(&ivwl_iface_{iface.name}.{kind}s[{sym.upper()}])\n")
    if not msg.args:
        w("\n")
        return
    w(f"struct {sym} {{\n")
    for a in msg.args:
        w(f"\t{FIELD_TYPES[a.code]}{a.name};{field_comment(a)}\n")
    w("};\n\n")
    emit_decoder(w, sym, msg)


def emit_decoder(w, sym, msg):
    """Static inline: a program's binary holds the ones it uses."""
    handle = sym.replace("ivwl_", "IVWL_MSG_", 1).upper()
    w(f"static inline bool\n{sym}_decode("
      f"const struct ivwl_wire_msg *msg,\n\tstruct {sym} *out)\n{{\n")
    w(f"\tif (msg->message != {handle}) {{\n")
    w("\t\tmemset(out, 0, sizeof(*out));\n")
    for a in msg.args:
        if a.code == "h":
            w(f"\t\tout->{a.name} = -1;\n")
    w("\t\treturn false;\n\t}\n")
    for k, a in enumerate(msg.args):
        arg = f"msg->args[{k}]"
        value = {
            "i": f"(int32_t){arg}.value",
            "f": f"(int32_t){arg}.value",
            "u": f"{arg}.value",
            "o": f"{arg}.value",
            "n": f"{arg}.value",
            "s": f"(const char *){arg}.data",
            "a": f"(struct ivwl_wire_array){{ {arg}.data, {arg}.len }}",
            "h": f"(int){arg}.value",
        }[a.code]
        w(f"\tout->{a.name} = {value};\n")
    w("\treturn true;\n}\n\n")
    if not any(a.code in WORD_CODES for a in msg.args):
        return
    w(f"static inline void\n{sym}_rewrite("
      "const struct ivwl_wire_msg *msg, void *bytes,\n"
      f"\tconst struct {sym} *args)\n{{\n")
    w(f"\tif (msg->message != {handle})\n")
    w("\t\treturn;\n")
    for k, a in enumerate(msg.args):
        if a.code in WORD_CODES:
            w(f"\tivwl_msg_put_word(bytes, msg->args[{k}].offset, "
              f"(uint32_t)args->{a.name});\n")
    w("}\n\n")


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
    for op, msg in enumerate(msgs):
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
        flags = " | ".join(f for f, on in (
            ("IVWL_MESSAGE_DESTRUCTOR", msg.destructor),
            ("IVWL_MESSAGE_RULED", msg.ruled),
            ("IVWL_MESSAGE_TIMED", msg.timed)) if on) or "0"
        w(f'\t{{ .name = "{msg.name}", .signature = "{sig}", '
          f".types = {types}, .enums = {enums},\n")
        w(f"\t  .nullable = 0x{nullable:x}u, .since = {msg.since}, "
          f".opcode = {op}, .nargs = {len(msg.args)}, .flags = {flags} }},\n")
    w("};\n\n")


def emit_source(out, interfaces, private):
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
        d = iface.desc
        w(f"\t.global = {GLOBAL_POLICIES[d.glob]},\n")
        flags = " | ".join(f for f, on in (
            ("IVWL_IFACE_REPLAY", d.replay),
            ("IVWL_IFACE_TIMED_GLOBAL", "global" in d.time)) if on) or "0"
        w(f"\t.flags = {flags},\n")
        w(f"\t.request_count = {len(iface.requests)},\n")
        w(f"\t.requests = {reqs},\n")
        w(f"\t.event_count = {len(iface.events)},\n")
        w(f"\t.events = {evts},\n}};\n\n")
    w("const struct ivwl_interface *const "
      "ivwl_interfaces[IVWL_IFACE_COUNT] = {\n")
    for iface in interfaces:
        w(f"\t&ivwl_iface_{iface.name},\n")
    w("};\n\n")
    w("const char *const "
      "ivwl_private_globals[IVWL_PRIVATE_GLOBAL_COUNT] = {\n")
    for e in private:
        w(f'\t"{e.name}",\n')
    w("};\n")


def emit_dispatch_source(out, interfaces):
    """The handler tables' dispatch, an object of its own: only the
    programs that dispatch through tables link it."""
    w = out.write
    w("/* Generated by ivwl-scanner.py from Wayland protocol XML. */\n")
    w('#include "ivwl-protocols.h"\n\n')
    emit_dispatch(w, interfaces, "request")
    emit_dispatch(w, interfaces, "event")


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


def write_atomically(path, emit, *args):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as out:
        emit(out, *args)
    os.replace(tmp, path)


def match_descriptors(descriptors, interfaces):
    """Every interface gets exactly one entry, every entry an interface
    of its own XML; rules and time name real messages.  Returns the
    entries of never-globals without XML."""
    by_source = {}
    for iface in interfaces:
        by_source.setdefault(iface.source, {})[iface.name] = iface
    private = []
    seen = {}
    for d in descriptors:
        for e in d.entries:
            if e.name in seen:
                raise ScanError(f"{e.name}: described in {seen[e.name]} "
                                f"and {d.path}")
            seen[e.name] = d.path
            if d.xml is None or d.absent:
                # a missing XML's globals are private: never offered
                if d.xml is None or e.glob:
                    private.append(e)
                continue
            iface = by_source[d.xml_file].get(e.name)
            if iface is None and e.since:
                private.append(e)
                continue
            if iface is None:
                raise ScanError(f"{d.path}: {e.name} is not in {d.xml}")
            if e.version is None:
                raise ScanError(f"{d.path}: [{e.name}] needs its version")
            iface.version = min(iface.version, e.version)
            iface.desc = e
            match_entry(d, e, iface)
    for iface in interfaces:
        if iface.desc is None:
            raise ScanError(f"{iface.name} ({os.path.basename(iface.source)})"
                            " has no descriptor: add it to protocol/wayland/"
                            "descriptors/ (docs/protocols.md)")
    private.sort(key=lambda e: e.name)
    return private


def match_entry(d, e, iface):
    """Its rules name requests, its times events or requests."""
    requests = {m.name: m for m in iface.requests}
    events = {m.name: m for m in iface.events}
    for r in e.rules:
        if r not in requests:
            raise ScanError(f"{d.path}: {e.name} has no request "
                            f"{r!r} (rules)")
        requests[r].ruled = True
    for t in e.time:
        if t == "global":
            if not e.glob:
                raise ScanError(f"{d.path}: {e.name}: time "
                                "\"global\" of no global")
            continue
        if t in events and t in requests:
            raise ScanError(f"{d.path}: {e.name}: {t!r} is an event and "
                            "a request (time)")
        if t not in events and t not in requests:
            raise ScanError(f"{d.path}: {e.name} has no event or "
                            f"request {t!r} (time)")
        (events.get(t) or requests[t]).timed = True


def read_limits(path):
    limits = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"#define (IVWL_\w+)\s+(.*?)\s*(/\*.*)?$", line)
            if m:
                limits[m.group(1)] = m.group(2)
    return limits


def check_budgets(interfaces, limits):
    """The firewall's budgets (IVWL_FW_*) are each named by a descriptor,
    and a descriptor names only budgets that exist."""
    named = set()
    for iface in interfaces:
        for b in iface.desc.budgets:
            if b not in limits:
                raise ScanError(f"{iface.name}: budget {b} is not in "
                                "ivwl-limits.h")
            named.add(b)
    loose = sorted(b for b in limits if b.startswith("IVWL_FW_") and
                   b not in named)
    if loose:
        raise ScanError(f"no descriptor names the budgets {loose}")


DOC_BEGIN = "<!-- descriptors: begin (generated; ivwl-scanner.py --write) -->"
DOC_END = "<!-- descriptors: end -->"


def md_list(items):
    return ", ".join(f"`{i}`" for i in items)


def doc_table(descriptors, limits):
    """Versions as reviewed: the installed XML's may be lower."""
    lines = [DOC_BEGIN, ""]
    for d in sorted(descriptors, key=lambda d: (d.xml is None, d.path)):
        title = d.xml.partition(":")[2] if d.xml else "no XML"
        lines += [f"### {os.path.basename(d.path)} ({title})", "",
                  "| interface | version | global | replayed | "
                  "firewall rules | times | budgets | why |",
                  "|---|---|---|---|---|---|---|---|"]
        for e in d.entries:
            budgets = ", ".join(f"`{b}` {limits.get(b, '?')}"
                                for b in e.budgets)
            lines.append(f"| `{e.name}` | {e.version or ''} | "
                         f"{e.glob or ''} | "
                         f"{'yes' if e.replay else 'no'} | "
                         f"{md_list(e.rules)} | {md_list(e.time)} | "
                         f"{budgets} | {e.why} |")
        lines.append("")
    lines.append(DOC_END)
    return "\n".join(lines)


MAN_DEFAULT = "which holds what an ordinary desktop client needs:"
MAN_NEVER = "Never allowed, whatever the list says:"


def man_names(text, start):
    """The interface names of the troff paragraph that starts with start."""
    i = text.find(start)
    if i < 0:
        return None
    para = text[i + len(start):].split(".br", 1)[0].split(".RE", 1)[0]
    para = para.replace("\\&", "").replace("\\fB", "").replace("\\fR", "")
    return set(re.findall(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b", para))


def check_man(path, descriptors):
    """weston-ivwl(7) lists the default and the never-offered globals:
    they must be the descriptors', whichever XML this system has."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise ScanError(f"{path}: {e}")
    entries = [e for d in descriptors for e in d.entries]
    want_default = {e.name for e in entries if e.glob == "allow"}
    want_never = {e.name for e in entries if e.glob == "never"}
    for what, start, want in (("default", MAN_DEFAULT, want_default),
                              ("never", MAN_NEVER, want_never)):
        got = man_names(text, start)
        if got is None:
            raise ScanError(f"{path}: no paragraph \"{start}\"")
        if got != want:
            raise ScanError(f"{path}: its {what} globals differ from the "
                            f"descriptors: missing {sorted(want - got)}, "
                            f"extra {sorted(got - want)}")


def apply_doc(path, table, write):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise ScanError(f"{path}: {e}")
    start = text.find(DOC_BEGIN)
    end = text.find(DOC_END)
    if start < 0 or end < start:
        raise ScanError(f"{path}: no descriptor table markers")
    new = text[:start] + table + text[end + len(DOC_END):]
    if new == text:
        return
    if not write:
        raise ScanError(f"{path}: its table disagrees with the "
                        "descriptors; rerun with --write")
    with open(path, "w", encoding="utf-8") as f:
        f.write(new)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wayland-dir", required=True,
                        help="wayland-scanner's pkgdatadir (wayland.xml)")
    parser.add_argument("--protocols-dir", required=True,
                        help="wayland-protocols' pkgdatadir")
    parser.add_argument("--c", help="C source to write")
    parser.add_argument("--h", help="C header to write")
    parser.add_argument("--dispatch", help="C source of the handler "
                        "tables' dispatch to write")
    parser.add_argument("--xml-list", action="store_true",
                        help="print the XML files, one a line")
    parser.add_argument("--all-in", help="fail unless every .toml file "
                        "of this folder is among the descriptors")
    parser.add_argument("--doc", help="docs page with the table")
    parser.add_argument("--limits", help="ivwl-limits.h, for --doc")
    parser.add_argument("--man", help="weston-ivwl.7, whose lists of "
                        "globals must be the descriptors'")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--write", action="store_true")
    parser.add_argument("descriptors", nargs="+", help="descriptor files")
    opts = parser.parse_args()

    try:
        descriptors = [Descriptor(p) for p in opts.descriptors]
        if opts.all_in:
            given = {os.path.realpath(p) for p in opts.descriptors}
            left = sorted(f for f in os.listdir(opts.all_in)
                          if f.endswith(".toml") and os.path.realpath(
                              os.path.join(opts.all_in, f)) not in given)
            if left:
                raise ScanError(f"{opts.all_in}: {left} not in the build "
                                "(protocol/wayland/meson.build)")
        for d in descriptors:
            d.xml_file = d.xml_path(opts) if d.xml else None
        xmls = [d.xml_file for d in descriptors if d.xml_file]
        if opts.xml_list:
            print("\n".join(xmls))
            return 0
        interfaces = []
        for path in xmls:
            interfaces += parse_file(path)
        interfaces.sort(key=lambda i: i.name)
        check_names(interfaces)
        check_references(interfaces)
        private = match_descriptors(descriptors, interfaces)
        if len(interfaces) > 0xFFFF:
            raise ScanError("too many interfaces")
        if opts.doc:
            if not opts.limits:
                raise ScanError("--doc needs --limits")
            limits = read_limits(opts.limits)
            check_budgets(interfaces, limits)
            apply_doc(opts.doc, doc_table(descriptors, limits), opts.write)
        if opts.man:
            check_man(opts.man, descriptors)
        if opts.h:
            write_atomically(opts.h, emit_header, interfaces, private)
        if opts.c:
            write_atomically(opts.c, emit_source, interfaces, private)
        if opts.dispatch:
            write_atomically(opts.dispatch, emit_dispatch_source, interfaces)
    except ScanError as e:
        print(f"ivwl-scanner: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
