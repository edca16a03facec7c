/* SPDX-License-Identifier: MIT */
/*
 * The Wayland wire walker (see wire.h for the object lifetime rules).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ivwl-protocols.h"
#include "wire.h"

_Static_assert(IVWL_IFACE_COUNT <= UINT16_MAX, "interface index width");
_Static_assert(IVWL_WIRE_MAX_MESSAGE <= UINT16_MAX, "argument offset width");
_Static_assert(IVWL_WIRE_MAX_ARGS <= 32, "nullable mask width");

enum entry_state {
	ENTRY_FREE = 0,
	ENTRY_LIVE,
	ENTRY_ZOMBIE,
};

struct ivwl_wire_entry {
	uint32_t version;
	uint16_t iface;		/* index in ivwl_interfaces[] */
	uint8_t state;		/* enum entry_state */
	uint8_t reserved;
};

#define IDS_FIRST_ALLOC 64u

static bool
is_server_id(uint32_t id)
{
	return id >= IVWL_WIRE_SERVER_ID_START;
}

static struct ivwl_wire_ids *
ids_of(struct ivwl_wire_map *map, uint32_t id, uint32_t *index)
{
	if (is_server_id(id)) {
		*index = id - IVWL_WIRE_SERVER_ID_START;
		return &map->server;
	}
	*index = id;
	return &map->client;
}

/* The entry of a live or zombie id, or NULL. */
static struct ivwl_wire_entry *
entry_find(const struct ivwl_wire_map *map, uint32_t id)
{
	const struct ivwl_wire_ids *ids;
	uint32_t index;

	ids = ids_of((struct ivwl_wire_map *)map, id, &index);
	if (index >= ids->count || ids->entries[index].state == ENTRY_FREE)
		return NULL;
	return &ids->entries[index];
}

static int
ids_grow(struct ivwl_wire_ids *ids, uint32_t index)
{
	struct ivwl_wire_entry *entries;
	uint32_t alloc = ids->alloc ? ids->alloc : IDS_FIRST_ALLOC;

	while (alloc <= index)
		alloc *= 2;
	if (alloc > IVWL_WIRE_MAX_OBJECTS)
		alloc = IVWL_WIRE_MAX_OBJECTS;
	entries = realloc(ids->entries, alloc * sizeof(*entries));
	if (!entries)
		return -ENOMEM;
	memset(entries + ids->alloc, 0,
	       (alloc - ids->alloc) * sizeof(*entries));
	ids->entries = entries;
	ids->alloc = alloc;
	return 0;
}

/*
 * Ids are dense on both sides (libwayland refuses others too): a new id is
 * the next unused index or a free one below it.  That, and the cap on the
 * index, bound what a peer can make us allocate.
 */
static int
map_insert(struct ivwl_wire_map *map, uint32_t id,
	   const struct ivwl_interface *iface, uint32_t version,
	   bool replace_zombie)
{
	struct ivwl_wire_entry *entry;
	struct ivwl_wire_ids *ids;
	uint32_t index;
	int ret;

	ids = ids_of(map, id, &index);
	if (id == 0 || index >= IVWL_WIRE_MAX_OBJECTS || index > ids->count)
		return -EPROTO;
	if (index == ids->count) {
		if (index >= ids->alloc) {
			ret = ids_grow(ids, index);
			if (ret < 0)
				return ret;
		}
		ids->count++;
	}
	entry = &ids->entries[index];
	if (entry->state == ENTRY_LIVE ||
	    (entry->state == ENTRY_ZOMBIE && !replace_zombie))
		return -EPROTO;
	if (entry->state == ENTRY_FREE)
		ids->live++;
	entry->version = version;
	entry->iface = iface->index;
	entry->state = ENTRY_LIVE;
	return 0;
}

static void
map_free(struct ivwl_wire_map *map, struct ivwl_wire_entry *entry,
	 uint32_t id)
{
	uint32_t index;

	ids_of(map, id, &index)->live--;
	entry->state = ENTRY_FREE;
}

int
ivwl_wire_map_forget(struct ivwl_wire_map *map, uint32_t id)
{
	struct ivwl_wire_entry *entry = entry_find(map, id);

	if (!entry || !is_server_id(id))
		return -ENOENT;
	map_free(map, entry, id);
	return 0;
}

int
ivwl_wire_map_init(struct ivwl_wire_map *map)
{
	memset(map, 0, sizeof(*map));
	/* index 0 stays free: id 0 is null */
	map->client.count = 1;
	return map_insert(map, IVWL_WIRE_DISPLAY_ID, &ivwl_iface_wl_display,
			  1, false);
}

void
ivwl_wire_map_release(struct ivwl_wire_map *map)
{
	free(map->client.entries);
	free(map->server.entries);
	memset(map, 0, sizeof(*map));
}

int
ivwl_wire_map_lookup(const struct ivwl_wire_map *map, uint32_t id,
		     struct ivwl_wire_object *out)
{
	const struct ivwl_wire_entry *entry = entry_find(map, id);

	if (!entry)
		return -ENOENT;
	out->iface = ivwl_interfaces[entry->iface];
	out->version = entry->version;
	out->zombie = entry->state == ENTRY_ZOMBIE;
	return 0;
}

bool
ivwl_wire_enum_valid(const struct ivwl_enum *e, uint32_t v)
{
	uint32_t i;

	if (e->bitfield)
		return (v & ~e->mask) == 0;
	for (i = 0; i < e->count; i++)
		if (e->values[i] == v)
			return true;
	return false;
}

const struct ivwl_message *
ivwl_wire_message(const struct ivwl_interface *iface, enum ivwl_wire_dir dir,
		  uint32_t opcode)
{
	if (dir == IVWL_WIRE_REQUEST)
		return opcode < iface->request_count ?
			&iface->requests[opcode] : NULL;
	return opcode < iface->event_count ? &iface->events[opcode] : NULL;
}

static uint32_t
read_word(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* s and a: a length word, then that many bytes padded to 4. */
static int
parse_blob(const uint8_t *p, uint32_t pos, uint32_t size, bool nullable,
	   struct ivwl_wire_arg *arg, uint32_t *next)
{
	uint32_t len = arg->value, room = size - pos - 4;

	/* room is a multiple of 4, so the padding fits too */
	if (len > room)
		return -EPROTO;
	if (arg->type == 's') {
		if (len == 0) {
			if (!nullable)
				return -EPROTO;
		} else if (p[pos + 4 + len - 1] != '\0') {
			return -EPROTO;
		}
	}
	arg->data = len || arg->type == 'a' ? p + pos + 4 : NULL;
	arg->len = len;
	*next = pos + 4 + ((len + 3) & ~3u);
	return 0;
}

static int
parse_args(const uint8_t *p, struct ivwl_wire_msg *msg)
{
	const struct ivwl_message *m = msg->message;
	uint32_t pos = IVWL_WIRE_HEADER_SIZE, k;

	if (m->nargs > IVWL_WIRE_MAX_ARGS)
		return -EPROTO;
	msg->nargs = m->nargs;
	msg->nfds = 0;
	for (k = 0; k < m->nargs; k++) {
		struct ivwl_wire_arg *arg = &msg->args[k];
		bool nullable = m->nullable & (1u << k);

		arg->type = m->signature[k];
		arg->data = NULL;
		arg->len = 0;
		if (arg->type == 'h') {
			arg->offset = 0;
			arg->value = msg->nfds++;
			continue;
		}
		if (msg->size - pos < 4)
			return -EPROTO;
		arg->offset = pos;
		arg->value = read_word(p + pos);
		switch (arg->type) {
		case 'i':
		case 'u':
		case 'f':
			pos += 4;
			break;
		case 'o':
		case 'n':
			if (arg->value == 0 && !nullable)
				return -EPROTO;
			pos += 4;
			break;
		case 's':
		case 'a':
			if (parse_blob(p, pos, msg->size, nullable, arg,
				       &pos) < 0)
				return -EPROTO;
			break;
		default:
			return -EPROTO;
		}
	}
	return pos == msg->size ? 0 : -EPROTO;
}

int
ivwl_wire_parse(const struct ivwl_wire_map *map, enum ivwl_wire_dir dir,
		const void *bytes, size_t len, struct ivwl_wire_msg *msg)
{
	const struct ivwl_wire_entry *entry;
	const uint8_t *p = bytes;
	uint32_t word, size;

	if (len < IVWL_WIRE_HEADER_SIZE)
		return 0;
	msg->object = read_word(p);
	word = read_word(p + 4);
	size = word >> 16;
	if (size < IVWL_WIRE_HEADER_SIZE || size % 4 ||
	    size > IVWL_WIRE_MAX_MESSAGE)
		return -EPROTO;
	if (len < size)
		return 0;
	msg->size = size;
	msg->opcode = word & 0xffff;

	entry = entry_find(map, msg->object);
	/* a destroyed object still hears events already on their way */
	if (!entry ||
	    (dir == IVWL_WIRE_REQUEST && entry->state == ENTRY_ZOMBIE))
		return -EPROTO;
	msg->iface = ivwl_interfaces[entry->iface];
	msg->version = entry->version;
	msg->message = ivwl_wire_message(msg->iface, dir, msg->opcode);
	if (!msg->message || msg->message->since > msg->version)
		return -EPROTO;
	if (parse_args(p, msg) < 0)
		return -EPROTO;
	return (int)size;
}

/*
 * A new_id of no fixed interface (wl_registry.bind) comes after the
 * interface's name and version, which the scanner keeps on the wire.
 */
static const struct ivwl_interface *
dynamic_interface(const struct ivwl_wire_msg *msg, unsigned int k,
		  uint32_t *version)
{
	const struct ivwl_wire_arg *name, *ver;
	const struct ivwl_interface *iface;

	if (k < 2)
		return NULL;
	name = &msg->args[k - 2];
	ver = &msg->args[k - 1];
	if (name->type != 's' || ver->type != 'u' || !name->data ||
	    name->len == 0)
		return NULL;
	iface = ivwl_wire_interface_find_n((const char *)name->data,
					   name->len - 1);
	/* objects of versions we have no table for could not be walked */
	if (!iface || ver->value == 0 || ver->value > iface->version)
		return NULL;
	*version = ver->value;
	return iface;
}

static int
track_new_id(struct ivwl_wire_map *map, enum ivwl_wire_dir dir,
	     const struct ivwl_wire_msg *msg, unsigned int k)
{
	const struct ivwl_interface *iface = NULL;
	uint32_t id = msg->args[k].value, version = msg->version;

	if (id == 0)
		return 0;	/* a nullable new_id left out */
	if (is_server_id(id) != (dir == IVWL_WIRE_EVENT))
		return -EPROTO;
	if (msg->message->types)
		iface = msg->message->types[k];
	if (!iface)
		iface = dynamic_interface(msg, k, &version);
	if (!iface)
		return -EPROTO;
	return map_insert(map, id, iface, version, dir == IVWL_WIRE_EVENT);
}

static int
track_destructor(struct ivwl_wire_map *map, enum ivwl_wire_dir dir,
		 uint32_t id)
{
	struct ivwl_wire_entry *entry = entry_find(map, id);

	if (!entry || id == IVWL_WIRE_DISPLAY_ID)
		return -EPROTO;
	if (dir == IVWL_WIRE_REQUEST)
		entry->state = ENTRY_ZOMBIE;
	else if (is_server_id(id))
		map_free(map, entry, id);
	/* a client id destroyed by an event waits for its delete_id */
	return 0;
}

static int
track_delete_id(struct ivwl_wire_map *map, uint32_t id)
{
	struct ivwl_wire_entry *entry = entry_find(map, id);

	if (!entry || is_server_id(id) || id == IVWL_WIRE_DISPLAY_ID)
		return -EPROTO;
	map_free(map, entry, id);
	return 0;
}

int
ivwl_wire_track(struct ivwl_wire_map *map, enum ivwl_wire_dir dir,
		const struct ivwl_wire_msg *msg)
{
	unsigned int k;
	int ret;

	if (msg->nargs > IVWL_WIRE_MAX_ARGS || !entry_find(map, msg->object))
		return -EPROTO;
	for (k = 0; k < msg->nargs; k++) {
		if (msg->args[k].type != 'n')
			continue;
		ret = track_new_id(map, dir, msg, k);
		if (ret < 0)
			return ret;
	}
	if (msg->message->flags & IVWL_MESSAGE_DESTRUCTOR) {
		ret = track_destructor(map, dir, msg->object);
		if (ret < 0)
			return ret;
	}
	if (dir == IVWL_WIRE_EVENT && msg->iface == &ivwl_iface_wl_display &&
	    msg->opcode == IVWL_EVT_WL_DISPLAY_DELETE_ID)
		return track_delete_id(map, msg->args[0].value);
	return 0;
}

/* strcmp order between a table name and len bytes without a NUL. */
static int
name_cmp(const char *table_name, const char *name, size_t len)
{
	int r = strncmp(table_name, name, len);

	if (r)
		return r;
	return table_name[len] != '\0';
}

const struct ivwl_interface *
ivwl_wire_interface_find_n(const char *name, size_t len)
{
	size_t lo = 0, hi = IVWL_IFACE_COUNT;

	if (memchr(name, '\0', len))
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = name_cmp(ivwl_interfaces[mid]->name, name, len);

		if (r == 0)
			return ivwl_interfaces[mid];
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct ivwl_interface *
ivwl_wire_interface_find(const char *name)
{
	return ivwl_wire_interface_find_n(name, strlen(name));
}

/* len bytes of data (NULL: zeros) after their length word, padded to 4. */
static int
write_blob(uint8_t *out, size_t room, uint32_t *pos, const void *data,
	   uint32_t len)
{
	uint32_t padded = (len + 3) & ~3u;

	if (len > IVWL_WIRE_MAX_MESSAGE || room - *pos < 4 + (size_t)padded)
		return -EMSGSIZE;
	memcpy(out + *pos, &len, 4);
	memset(out + *pos + 4, 0, padded);
	if (data)
		memcpy(out + *pos + 4, data, len);
	*pos += 4 + padded;
	return 0;
}

static int
write_arg(uint8_t *out, size_t room, uint32_t *pos, char type, va_list *ap)
{
	const struct ivwl_wire_array *array;
	const char *s;
	uint32_t word;

	switch (type) {
	case 'h':
		return 0;
	case 's':
		s = va_arg(*ap, const char *);
		if (!s)
			return write_blob(out, room, pos, NULL, 0);
		if (strlen(s) >= IVWL_WIRE_MAX_MESSAGE)
			return -EMSGSIZE;
		return write_blob(out, room, pos, s, (uint32_t)strlen(s) + 1);
	case 'a':
		array = va_arg(*ap, const struct ivwl_wire_array *);
		if (!array)
			return write_blob(out, room, pos, NULL, 0);
		return write_blob(out, room, pos, array->data, array->len);
	case 'i':
	case 'u':
	case 'f':
	case 'o':
	case 'n':
		word = va_arg(*ap, uint32_t);
		if (room - *pos < 4)
			return -EMSGSIZE;
		memcpy(out + *pos, &word, 4);
		*pos += 4;
		return 0;
	default:
		return -EINVAL;
	}
}

int
ivwl_wire_vwrite(void *out, size_t room, uint32_t object, uint16_t opcode,
		 const char *signature, va_list ap)
{
	uint32_t pos = IVWL_WIRE_HEADER_SIZE, word;
	va_list args;
	int ret = 0;

	if (room > IVWL_WIRE_MAX_MESSAGE)
		room = IVWL_WIRE_MAX_MESSAGE;
	if (room < IVWL_WIRE_HEADER_SIZE)
		return -EMSGSIZE;
	va_copy(args, ap);
	for (; *signature && ret == 0; signature++)
		ret = write_arg(out, room, &pos, *signature, &args);
	va_end(args);
	if (ret < 0)
		return ret;
	word = pos << 16 | opcode;
	memcpy(out, &object, 4);
	memcpy((uint8_t *)out + 4, &word, 4);
	return (int)pos;
}

int
ivwl_wire_write(void *out, size_t room, uint32_t object, uint16_t opcode,
		const char *signature, ...)
{
	va_list ap;
	int ret;

	va_start(ap, signature);
	ret = ivwl_wire_vwrite(out, room, object, opcode, signature, ap);
	va_end(ap);
	return ret;
}

int
ivwl_wire_vwrite_msg(void *out, size_t room, uint32_t object,
		     const struct ivwl_message *m, va_list ap)
{
	return ivwl_wire_vwrite(out, room, object, m->opcode, m->signature,
				ap);
}

int
ivwl_wire_write_msg(void *out, size_t room, uint32_t object,
		    const struct ivwl_message *m, ...)
{
	va_list ap;
	int ret;

	va_start(ap, m);
	ret = ivwl_wire_vwrite_msg(out, room, object, m, ap);
	va_end(ap);
	return ret;
}

bool
ivwl_channel_message(const struct ivwl_wire_msg *msg)
{
	if (msg->nfds != 1)
		return false;
	return (msg->iface == &ivwl_iface_wl_data_offer &&
		msg->opcode == IVWL_REQ_WL_DATA_OFFER_RECEIVE) ||
	       (msg->iface == &ivwl_iface_wl_data_source &&
		msg->opcode == IVWL_EVT_WL_DATA_SOURCE_SEND) ||
	       (msg->iface == &ivwl_iface_zwp_primary_selection_offer_v1 &&
		msg->opcode ==
		IVWL_REQ_ZWP_PRIMARY_SELECTION_OFFER_V1_RECEIVE) ||
	       (msg->iface == &ivwl_iface_zwp_primary_selection_source_v1 &&
		msg->opcode == IVWL_EVT_ZWP_PRIMARY_SELECTION_SOURCE_V1_SEND);
}
