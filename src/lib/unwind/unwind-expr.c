/*
 * DWARF expressions of call frame information, evaluated symbolically:
 * every stack value is "base register + constant" (a constant when the
 * base is none), and may be loaded from memory once, as the last step.
 * rip is known (it is the address looked up), rsp and rbp are not.  That
 * covers the .plt's rip-dependent CFA, signal trampolines and realigning
 * prologues; anything else is refused.
 */
#include <string.h>

#include "unwind/unwind-cfi.h"

#define REG_RBP 6
#define REG_RSP 7
#define REG_RIP 16

#define EXPR_STACK 16

int ember_dwarf_expr(const uint8_t *expr, size_t len, uint64_t rip,
		     const struct ember_dwval *initial, struct ember_dwval *out)
{
	struct ember_dwval st[EXPR_STACK];
	int n = 0, steps = 0;
	struct ember_cur k = {expr, expr + len, 0};

	if (initial)
		st[n++] = *initial;
	while (k.p < k.end) {
		uint8_t op = *k.p++;
		struct ember_dwval a, b;
		uint64_t u;

		if (++steps > 256)
			return -1;
#define PUSH(v)                                                                \
	do {                                                                   \
		struct ember_dwval v_ = (v);                                   \
		if (n == EXPR_STACK)                                           \
			return -1;                                             \
		st[n] = v_;                                                    \
		n++;                                                           \
	} while (0)
#define CONST(v) ((struct ember_dwval){EMBER_DW_CONST, 0, (int64_t)(v)})
		if (n && st[n - 1].deref && op != 0x96)
			return -1; /* arithmetic on loaded values */
		if (op >= 0x30 && op <= 0x4f) {
			PUSH(CONST(op - 0x30));
			continue;
		}
		if ((op >= 0x70 && op <= 0x8f) || op == 0x92) {
			uint64_t reg =
			    op == 0x92 ? ember_cur_uleb(&k) : op - 0x70u;
			int64_t off = ember_cur_sleb(&k);
			if (reg == REG_RSP)
				PUSH((
				    (struct ember_dwval){EMBER_DW_SP, 0, off}));
			else if (reg == REG_RBP)
				PUSH((
				    (struct ember_dwval){EMBER_DW_BP, 0, off}));
			else if (reg == REG_RIP)
				PUSH(CONST(rip + (uint64_t)off));
			else
				return -1;
			continue;
		}
		switch (op) {
		case 0x03:
			PUSH(CONST(ember_cur_n(&k, 8)));
			break;
		case 0x08:
			PUSH(CONST(ember_cur_n(&k, 1)));
			break;
		case 0x09:
			PUSH(CONST((int8_t)ember_cur_n(&k, 1)));
			break;
		case 0x0a:
			PUSH(CONST(ember_cur_n(&k, 2)));
			break;
		case 0x0b:
			PUSH(CONST((int16_t)ember_cur_n(&k, 2)));
			break;
		case 0x0c:
			PUSH(CONST(ember_cur_n(&k, 4)));
			break;
		case 0x0d:
			PUSH(CONST((int32_t)ember_cur_n(&k, 4)));
			break;
		case 0x0e:
		case 0x0f:
			PUSH(CONST(ember_cur_n(&k, 8)));
			break;
		case 0x10:
			PUSH(CONST(ember_cur_uleb(&k)));
			break;
		case 0x11:
			PUSH(CONST(ember_cur_sleb(&k)));
			break;
		case 0x12: /* dup */
			if (n < 1)
				return -1;
			PUSH(st[n - 1]);
			break;
		case 0x13: /* drop */
			if (n < 1)
				return -1;
			n--;
			break;
		case 0x14: /* over */
			if (n < 2)
				return -1;
			PUSH(st[n - 2]);
			break;
		case 0x15: /* pick */
			u = ember_cur_n(&k, 1);
			if (u >= (uint64_t)n)
				return -1;
			PUSH(st[n - 1 - (int)u]);
			break;
		case 0x16: /* swap */
			if (n < 2)
				return -1;
			a = st[n - 1];
			st[n - 1] = st[n - 2];
			st[n - 2] = a;
			break;
		case 0x17: /* rot */
			if (n < 3)
				return -1;
			a = st[n - 1];
			st[n - 1] = st[n - 2];
			st[n - 2] = st[n - 3];
			st[n - 3] = a;
			break;
		case 0x06: /* deref: only as the final step */
			if (n < 1 || st[n - 1].base == EMBER_DW_CONST)
				return -1;
			st[n - 1].deref = 1;
			break;
		case 0x23: /* plus_uconst */
			if (n < 1)
				return -1;
			st[n - 1].off = (int64_t)((uint64_t)st[n - 1].off +
						  ember_cur_uleb(&k));
			break;
		case 0x19:
		case 0x1a:
		case 0x1b:
		case 0x1c:
		case 0x1d:
		case 0x1e:
		case 0x1f:
		case 0x20:
		case 0x21:
		case 0x22:
		case 0x24:
		case 0x25:
		case 0x26:
		case 0x27:
		case 0x29:
		case 0x2a:
		case 0x2b:
		case 0x2c:
		case 0x2d:
		case 0x2e: {
			int unary = op == 0x19 || op == 0x1f || op == 0x20;
			if (n < (unary ? 1 : 2))
				return -1;
			b = st[--n];
			a = unary ? CONST(0) : st[--n];
			uint64_t x = (uint64_t)a.off, y = (uint64_t)b.off, r;
			if (op == 0x22 && (a.base == EMBER_DW_CONST ||
					   b.base == EMBER_DW_CONST)) {
				uint8_t base = a.base ? a.base : b.base;
				PUSH(((struct ember_dwval){base, 0,
							   (int64_t)(x + y)}));
				break;
			}
			if (op == 0x1c &&
			    b.base == EMBER_DW_CONST) { /* a - const */
				PUSH(((struct ember_dwval){a.base, 0,
							   (int64_t)(x - y)}));
				break;
			}
			if (a.base != EMBER_DW_CONST ||
			    b.base != EMBER_DW_CONST)
				return -1;
			switch (op) {
			case 0x19:
				r = (int64_t)y < 0 ? -y : y;
				break;
			case 0x1a:
				r = x & y;
				break;
			case 0x1b:
				if (y == 0 || ((int64_t)x == INT64_MIN &&
					       (int64_t)y == -1))
					return -1;
				r = (uint64_t)((int64_t)x / (int64_t)y);
				break;
			case 0x1d:
				if (y == 0)
					return -1;
				r = x % y;
				break;
			case 0x1e:
				r = x * y;
				break;
			case 0x1f:
				r = -y;
				break;
			case 0x20:
				r = ~y;
				break;
			case 0x21:
				r = x | y;
				break;
			case 0x24:
				r = y >= 64 ? 0 : x << y;
				break;
			case 0x25:
				r = y >= 64 ? 0 : x >> y;
				break;
			case 0x26:
				r = (uint64_t)((int64_t)x >>
					       (y >= 63 ? 63 : y));
				break;
			case 0x27:
				r = x ^ y;
				break;
			case 0x29:
				r = x == y;
				break;
			case 0x2a:
				r = (int64_t)x >= (int64_t)y;
				break;
			case 0x2b:
				r = (int64_t)x > (int64_t)y;
				break;
			case 0x2c:
				r = (int64_t)x <= (int64_t)y;
				break;
			case 0x2d:
				r = (int64_t)x < (int64_t)y;
				break;
			case 0x2e:
				r = x != y;
				break;
			default:
				return -1;
			}
			PUSH(CONST(r));
			break;
		}
		case 0x2f:   /* skip */
		case 0x28: { /* bra */
			int16_t d = (int16_t)ember_cur_n(&k, 2);
			if (op == 0x28) {
				if (n < 1 || st[n - 1].base != EMBER_DW_CONST)
					return -1;
				if (st[--n].off == 0)
					break;
			}
			if (k.bad || (d < 0 && -(ptrdiff_t)d > k.p - expr) ||
			    (d > 0 && d > k.end - k.p))
				return -1;
			k.p += d;
			break;
		}
		case 0x96: /* nop */
			break;
		default:
			return -1;
		}
#undef PUSH
#undef CONST
		if (k.bad)
			return -1;
	}
	if (k.bad || n < 1)
		return -1;
	*out = st[n - 1];
	return 0;
}
