/* SPDX-License-Identifier: MIT */
/*
 * The Wayland wire walker: splits a byte stream into messages, decodes
 * their arguments against the tables generated from protocol XML
 * (ivwl-protocols.h, made by scanner/ivwl-scanner.py) and follows object
 * creation and destruction, so both sides know every object's interface.
 * The scanner also makes, per message, a struct of its arguments by name
 * and a decoder that fills it from a parsed message, and per interface
 * handler tables (ivwl-protocols.h); ivwl_wire_write is the one writer
 * of messages, for every program and the tests.
 *
 * The display side feeds it requests straight from a hostile peer: every
 * length is checked against the bytes the caller passed, nothing is read
 * outside them, and the object map has a fixed upper bound.
 *
 * Object lifetime rules (one rule set, exact for the display side and
 * safe for the app side, which sees requests earlier and events later):
 *
 * - Client ids (1 .. 0xfeffffff) are created by new_id arguments of
 *   requests; server ids (0xff000000 ..) by new_id arguments of events.
 *   Any other combination is a protocol error.
 * - Like libwayland, ids are dense: a new id is either one past the
 *   highest id of its side or a free id below it.  An id index of
 *   IVWL_WIRE_MAX_OBJECTS or more is refused, which bounds the map.
 * - A destructor request makes its object a zombie: no request may name
 *   it as target any more, but events the server sent before it saw the
 *   request may still arrive and are decoded with the old interface.
 * - A client id is freed only by wl_display.delete_id, which the server
 *   sends once it destroyed the object (whoever asked for that).  Until
 *   then the id cannot be reused, as libwayland-client would not.
 * - A server id has no delete_id.  It is freed by a destructor event; a
 *   server id that is a zombie (the client destroyed it) may be created
 *   anew by a later event, since the server reuses it once it handled the
 *   destructor request.
 * - The version of a new object is that of the object the message was
 *   sent to, except for wl_registry.bind, whose interface and version come
 *   from its own arguments (1 <= version <= the table's version).
 * - Object arguments ('o') are only checked for null; whether they name a
 *   live object of the right interface is for libwayland to decide (the
 *   app side may legitimately see references to objects it destroyed).
 */
#ifndef IVWL_WIRE_H
#define IVWL_WIRE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IVWL_WIRE_HEADER_SIZE 8u
#define IVWL_WIRE_MAX_MESSAGE 4096u	/* libwayland's buffer size */
#define IVWL_WIRE_MAX_ARGS 20u		/* as libwayland's closures */

#define IVWL_WIRE_SERVER_ID_START 0xff000000u
#define IVWL_WIRE_DISPLAY_ID 1u

/*
 * Per side (client ids, server ids): ids index at most this far.  Both
 * this map and libwayland's grow to the highest id used, so this bounds
 * what a peer's ids cost (8 bytes an id, each).  Clients reuse freed
 * ids: their highest is about their most objects alive at once, which
 * the display side bounds far lower (plugin/firewall-model.h).
 */
#define IVWL_WIRE_MAX_OBJECTS (1u << 16)

/* ivwl_message.flags */
#define IVWL_MESSAGE_DESTRUCTOR 0x1u
/* A request the display-side firewall has a rule for (its descriptor). */
#define IVWL_MESSAGE_RULED 0x2u
/* An event whose times the relay puts in the app-VM's clock. */
#define IVWL_MESSAGE_TIMED 0x4u

/*
 * What a VM's clients see of a global, from its descriptor in
 * protocol/wayland/descriptors/: not a global, offered unless the VM's allow=
 * list says otherwise, offered only when allow= names it, or never.
 */
enum ivwl_global_policy {
	IVWL_GLOBAL_NONE = 0,
	IVWL_GLOBAL_ALLOW,
	IVWL_GLOBAL_DENY,
	IVWL_GLOBAL_NEVER,
};

/* Interface flags, from its descriptor. */
/* its objects are made again on a new compositor after a restart */
#define IVWL_IFACE_REPLAY 0x1u
/* the relay hides its global until it can put the global's times in
 * the app-VM's clock */
#define IVWL_IFACE_TIMED_GLOBAL 0x2u

struct ivwl_interface;

/*
 * One request or event.  signature has one char per wire argument:
 * i int, u uint, f fixed, s string, o object, n new_id, a array, h fd.
 * Bit k of nullable allows a null value for argument k (s, o, n, a only).
 * types[k] is the interface of an o or n argument, NULL when any interface
 * goes (and for every other type); types itself is NULL when no argument
 * names an interface; enums likewise for int and uint arguments that name
 * an enum.  A new_id of no fixed interface is preceded by the
 * interface name (s) and version (u), as on the wire.
 */
/*
 * An enum of the XML, for arguments that name one.  A bitfield's value is
 * valid when it has no bit outside mask; any other enum's is one of
 * values (since-versions of entries are not followed).
 */
struct ivwl_enum {
	const char *name;	/* "interface.enum" */
	bool bitfield;
	uint32_t mask;		/* all entries or'ed */
	uint32_t count;
	const uint32_t *values;
};

struct ivwl_message {
	const char *name;
	const char *signature;
	const struct ivwl_interface *const *types;
	const struct ivwl_enum *const *enums;	/* like types, for enums */
	uint32_t nullable;
	uint16_t since;
	uint16_t opcode;	/* its index in its interface's table */
	uint8_t nargs;
	uint8_t flags;
};

struct ivwl_interface {
	const char *name;
	uint32_t version;	/* the highest this table knows */
	uint16_t index;		/* in ivwl_interfaces[] */
	uint8_t global;		/* enum ivwl_global_policy */
	uint8_t flags;		/* IVWL_IFACE_* */
	uint16_t request_count;
	const struct ivwl_message *requests;
	uint16_t event_count;
	const struct ivwl_message *events;
};

enum ivwl_wire_dir {
	IVWL_WIRE_REQUEST,	/* client to server */
	IVWL_WIRE_EVENT,	/* server to client */
};

struct ivwl_wire_arg {
	char type;		/* as in the signature */
	uint16_t offset;	/* in the message: the value, or the length
				 * word of s and a; 0 for h */
	uint32_t value;		/* raw word: i and f as two's complement,
				 * o and n the id, s and a the length word,
				 * h the fd's index among the message's fds */
	const uint8_t *data;	/* s, a: contents in the caller's bytes;
				 * NULL for a null string */
	uint32_t len;		/* s, a: bytes of contents (s with its NUL) */
};

struct ivwl_wire_msg {
	uint32_t object;
	uint16_t opcode;
	uint16_t size;		/* bytes, header included */
	const struct ivwl_interface *iface;
	uint32_t version;	/* the target object's */
	const struct ivwl_message *message;
	uint8_t nargs;
	uint8_t nfds;		/* fds that travel with it (count of h) */
	struct ivwl_wire_arg args[IVWL_WIRE_MAX_ARGS];
};

/* An a argument: decoded, its contents; written, data NULL is zeros. */
struct ivwl_wire_array {
	const void *data;
	uint32_t len;		/* bytes */
};

/* What the map knows about one id. */
struct ivwl_wire_object {
	const struct ivwl_interface *iface;
	uint32_t version;
	bool zombie;		/* destroyed by a request, awaiting its end */
};

struct ivwl_wire_entry;

struct ivwl_wire_ids {
	struct ivwl_wire_entry *entries;
	uint32_t count;		/* ids indexed so far: the next new one */
	uint32_t alloc;
	uint32_t live;		/* entries in use, zombies included */
};

/* One connection's objects.  Not shared between threads. */
struct ivwl_wire_map {
	struct ivwl_wire_ids client;
	struct ivwl_wire_ids server;
};

/* Sets up a map holding wl_display (id 1, version 1).  0 or -ENOMEM. */
int
ivwl_wire_map_init(struct ivwl_wire_map *map);

void
ivwl_wire_map_release(struct ivwl_wire_map *map);

/*
 * Forgets a server-created id the server destroyed without telling the
 * client (the client never heard of it: an event that made it was
 * withheld).  -ENOENT if id is not such a live entry.
 */
int
ivwl_wire_map_forget(struct ivwl_wire_map *map, uint32_t id);

/* 0 and *out filled for a live or zombie id, else -ENOENT. */
int
ivwl_wire_map_lookup(const struct ivwl_wire_map *map, uint32_t id,
		     struct ivwl_wire_object *out);

/*
 * Decodes the message at the start of bytes, sent in direction dir.
 * Returns its size, 0 if len does not hold all of it yet, or -EPROTO.
 * msg->args point into bytes: keep them alive until done with msg.
 */
int
ivwl_wire_parse(const struct ivwl_wire_map *map, enum ivwl_wire_dir dir,
		const void *bytes, size_t len, struct ivwl_wire_msg *msg);

/*
 * Applies a parsed message's effect on the map: objects it creates,
 * destroys or (delete_id) releases.  Call it in stream order, after
 * ivwl_wire_parse of the same bytes, while they are still there.
 * Returns 0, -EPROTO (the map may then be half updated: the connection
 * is dead) or -ENOMEM.
 */
int
ivwl_wire_track(struct ivwl_wire_map *map, enum ivwl_wire_dir dir,
		const struct ivwl_wire_msg *msg);

/*
 * The one message writer.  Writes a message to object into out (room
 * bytes): its header, then for each character of signature an argument
 * taken from ap: i and f an int32_t, u, o and n a uint32_t, s a const
 * char * (NULL: a null string), a a const struct ivwl_wire_array *
 * (NULL: an empty array), h nothing (fds travel beside the bytes).  Returns the message's size,
 * -EMSGSIZE when it would not fit room or IVWL_WIRE_MAX_MESSAGE (out
 * then holds garbage), -EINVAL for a character not in that list.
 * Nothing is checked against a table: tests write malformed messages
 * with it.
 */
int
ivwl_wire_vwrite(void *out, size_t room, uint32_t object, uint16_t opcode,
		 const char *signature, va_list ap);

int
ivwl_wire_write(void *out, size_t room, uint32_t object, uint16_t opcode,
		const char *signature, ...);

/*
 * The same for message m of the tables (IVWL_MSG_REQ_<IFACE>_<NAME> or
 * _EVT_ of ivwl-protocols.h): its opcode and signature, so the
 * arguments follow the protocol's order.
 */
int
ivwl_wire_write_msg(void *out, size_t room, uint32_t object,
		    const struct ivwl_message *m, ...);

int
ivwl_wire_vwrite_msg(void *out, size_t room, uint32_t object,
		     const struct ivwl_message *m, va_list ap);

/* True when v is a value of e (see struct ivwl_enum). */
bool
ivwl_wire_enum_valid(const struct ivwl_enum *e, uint32_t v);

/* A message table entry, or NULL if opcode is out of range. */
const struct ivwl_message *
ivwl_wire_message(const struct ivwl_interface *iface, enum ivwl_wire_dir dir,
		  uint32_t opcode);

/* The table of an interface by name, or NULL. */
const struct ivwl_interface *
ivwl_wire_interface_find(const char *name);

/* Same, for a name that is not NUL-terminated (len bytes, no NUL). */
const struct ivwl_interface *
ivwl_wire_interface_find_n(const char *name, size_t len);

/*
 * True for the messages whose single fd is a pipe write end that stream
 * channels (channel.h) bridge: wl_data_offer.receive, wl_data_source.send
 * and their primary selection twins.  Here, not in channel.c, because it
 * reads the generated tables: the channels themselves know records and
 * rings, not Wayland.
 */
bool
ivwl_channel_message(const struct ivwl_wire_msg *msg);

#endif
