/* SPDX-License-Identifier: MIT */
/*
 * The wire walker on arbitrary traffic.  Every input starts from a map in
 * which a client bound every interface we know (ids 3 and up, in table
 * order), then is read as steps: a control byte says the direction and
 * whether the next bytes are a raw message stream or the body of a
 * message whose header we frame (so the target and size are plausible
 * more often).  Whatever parse accepts must lie inside the input, and
 * whatever track accepts must be in the map.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ivwl-protocols.h"
#include "wire.h"
#include "wire-msg.h"

#define MAX_STEPS 2048

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* get_registry, then a bind of every interface at its highest version. */
static size_t
build_prelude(uint8_t *buf, size_t cap)
{
	size_t len, i;

	len = ivwl_test_msg(buf, (uint32_t)cap, IVWL_WIRE_DISPLAY_ID,
			    IVWL_REQ_WL_DISPLAY_GET_REGISTRY, "n", 2);
	for (i = 0; i < IVWL_IFACE_COUNT; i++) {
		const struct ivwl_interface *iface = ivwl_interfaces[i];

		len += ivwl_test_msg(buf + len, (uint32_t)(cap - len), 2,
				     IVWL_REQ_WL_REGISTRY_BIND, "usun",
				     (uint32_t)i, iface->name, iface->version,
				     (uint32_t)(3 + i));
	}
	return len;
}

static void
check_ids(const struct ivwl_wire_ids *ids)
{
	if (ids->live > ids->count || ids->count > ids->alloc ||
	    ids->alloc > IVWL_WIRE_MAX_OBJECTS)
		abort();
}

/* What parse promised about msg, for a message of ret bytes at base. */
static void
check_msg(const struct ivwl_wire_msg *msg, const uint8_t *base, int ret,
	  size_t len)
{
	unsigned int k, fds = 0;

	if (ret < 8 || ret % 4 || (size_t)ret > len ||
	    ret > (int)IVWL_WIRE_MAX_MESSAGE || msg->size != ret)
		abort();
	if (!msg->iface || !msg->message ||
	    msg->nargs != strlen(msg->message->signature) ||
	    msg->message->since > msg->version)
		abort();
	for (k = 0; k < msg->nargs; k++) {
		const struct ivwl_wire_arg *arg = &msg->args[k];

		if (arg->type == 'h') {
			if (arg->value != fds++)
				abort();
			continue;
		}
		if (arg->offset < 8 || arg->offset + 4u > (unsigned int)ret)
			abort();
		if (arg->data && (arg->data != base + arg->offset + 4 ||
				  arg->offset + 4u + arg->len >
					  (unsigned int)ret))
			abort();
		if (arg->type == 's' && arg->data &&
		    (arg->len == 0 || arg->data[arg->len - 1] != '\0'))
			abort();
	}
	if (fds != msg->nfds)
		abort();
}

/* Every object a successful track created is in the map. */
static void
check_created(const struct ivwl_wire_map *map,
	      const struct ivwl_wire_msg *msg)
{
	struct ivwl_wire_object obj;
	unsigned int k;

	for (k = 0; k < msg->nargs; k++) {
		if (msg->args[k].type != 'n' || msg->args[k].value == 0)
			continue;
		if (ivwl_wire_map_lookup(map, msg->args[k].value, &obj) < 0 ||
		    obj.zombie || obj.version == 0)
			abort();
	}
}

static void
step(struct ivwl_wire_map *map, enum ivwl_wire_dir dir, const uint8_t *base,
     size_t len, int *ret)
{
	struct ivwl_wire_msg msg;

	*ret = ivwl_wire_parse(map, dir, base, len, &msg);
	if (*ret < 0 && *ret != -EPROTO)
		abort();
	if (*ret <= 0)
		return;
	check_msg(&msg, base, *ret, len);
	if (ivwl_wire_track(map, dir, &msg) == 0)
		check_created(map, &msg);
	check_ids(&map->client);
	check_ids(&map->server);
}

/* Our own header, then up to 63 words of input as the body. */
static size_t
frame(uint8_t *buf, const uint8_t *in, size_t left, uint8_t ctl,
      size_t *used)
{
	uint32_t id, word, body;

	if (left < 2) {
		*used = left;
		return 0;
	}
	id = in[0] & 0x80 ? IVWL_WIRE_SERVER_ID_START + (in[0] & 0x7f) :
			    in[0];
	body = (uint32_t)(ctl >> 2) * 4;
	if (body > left - 2)
		body = (uint32_t)(left - 2);
	word = (8 + body) << 16 | (in[1] & 0x1f);
	memcpy(buf, &id, 4);
	memcpy(buf + 4, &word, 4);
	memcpy(buf + 8, in + 2, body);
	*used = 2 + body;
	return 8 + body;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t prelude[8192];
	static size_t prelude_len;
	static uint8_t framed[8 + 64 * 4];
	struct ivwl_wire_map map;
	size_t pos = 0, done, used, len;
	int ret, steps = 0;

	if (!prelude_len)
		prelude_len = build_prelude(prelude, sizeof(prelude));
	if (ivwl_wire_map_init(&map) < 0)
		abort();
	for (done = 0; done < prelude_len; done += ret) {
		step(&map, IVWL_WIRE_REQUEST, prelude + done,
		     prelude_len - done, &ret);
		if (ret <= 0)
			abort();
	}

	while (pos < size && steps++ < MAX_STEPS) {
		uint8_t ctl = data[pos++];
		enum ivwl_wire_dir dir = ctl & 1 ? IVWL_WIRE_EVENT :
						   IVWL_WIRE_REQUEST;

		if (ctl & 2) {
			len = frame(framed, data + pos, size - pos, ctl,
				    &used);
			pos += used;
			if (len)
				step(&map, dir, framed, len, &ret);
			continue;
		}
		step(&map, dir, data + pos, size - pos, &ret);
		if (ret == 0)
			break;
		/* after garbage, resynchronise a word further on */
		pos += ret > 0 ? (size_t)ret : 4;
	}
	ivwl_wire_map_release(&map);
	return 0;
}
