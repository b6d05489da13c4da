"""First-page top area: which header fields are shown, where the seller VAT id
and bank details go, and the five party arrangements (window, letterhead_left,
letterhead_center, two_columns, footer_only)."""

import blocks as B
import content


def decide(d):
    """Choose what gets printed; returns the 'shown' dict used for the truth."""
    k, inv, rnd = d.k, d.inv, d.rnd
    dis = set(k.get("distractors", ()))
    due_p = k.get("due_p", 0.75) * (0.15 if inv["credit"] else 1.0)
    shown = {"due": inv["due"] if rnd.random() < due_p else None,
             "vat": inv["seller"]["vat"] if rnd.random() < k.get("vat_p", 0.9) else None,
             "order_ref": inv["order_ref"] if ("order_ref" in dis or rnd.random() < k.get("order_ref_p", 0.3)) else None,
             "direct_debit": "buyer_iban" in dis, "dis": dis}
    if shown["direct_debit"]:
        shown["iban"] = shown["bic"] = None
    else:
        shown["iban"] = inv["seller"]["iban"]
        shown["bic"] = inv["seller"]["bic"]
    arr = k["parties"]
    shown["footer"] = arr == "footer_only" or rnd.random() < k.get("footer_p", 0.45)
    if shown["footer"]:
        vat_locs = ["footer", "footer", "fields"]
    elif arr in ("letterhead_left", "letterhead_center"):
        vat_locs = ["letterhead", "fields"]
    elif arr == "two_columns":
        vat_locs = ["block", "block", "fields"]
    else:
        vat_locs = ["fields", "payment"]
    shown["vat_loc"] = rnd.choice(vat_locs)
    shown["due_in_fields"] = rnd.random() < 0.75
    shown["title_line"] = k["fields"] == "title"
    if shown["footer"]:
        # The footer prints the seller's VAT id only when the truth shows one.
        B.build_footer(d, shown["vat_loc"] == "footer" and shown["vat"] is not None,
                       not shown["direct_debit"])
    return shown


def build_fields(d, shown):
    inv, dis, rnd = d.inv, shown["dis"], d.rnd
    fields = []
    head = []
    if not shown["title_line"]:
        head.append((d.lab("credit_number" if inv["credit"] else "invoice_number"), inv["number"]))
        head.append((d.lab("issue_date"), d.date(inv["issue"])))
        if rnd.random() < 0.25:
            head.reverse()
    if shown["due"] and shown["due_in_fields"]:
        fields.append((d.lab("due_date"), d.date(shown["due"])))
    if shown["order_ref"]:
        fields.append((d.lab("order_ref"), inv["order_ref"]))
    if "customer_no" in dis:
        fields.append((d.lab("customer_no"), inv["buyer"]["customer_no"]))
    if "delivery_date" in dis:
        fields.append((d.lab("delivery_date"), d.date(inv["delivery_date"])))
    if "order_date" in dis:
        fields.append((d.lab("order_date"), d.date(inv["order_date"])))
    if "assoc_date" in dis:
        fields.append((d.lab("assoc_date"), d.date(inv["assoc_date"])))
    if "service_period" in dis:
        a, b = inv["period"]
        fields.append((d.lab("service_period"), "%s - %s" % (d.date(a), d.date(b))))
    if shown["vat"] and shown["vat_loc"] == "fields":
        fields.append((d.lab("vat_id"), d.vat_text(shown["vat"])))
    rnd.shuffle(fields)
    return head + fields


def title_text(d):
    inv = d.inv
    t = d.L("credit_title" if inv["credit"] else "title")
    return t


def draw_title(d, y, x=None, align="left", shown=None):
    """Title (or the title line with number and date); returns new y."""
    x = d.x0 if x is None else x
    t = title_text(d)
    if shown and shown["title_line"]:
        t = d.L("title_line", title=t, number=d.inv["number"], date=d.date(d.inv["issue"]))
    size = d.title_size
    y += size
    d.text(x, y, t, d.bold, size, align, maxw=d.x1 - d.x0)
    return y + size * 0.5


def buyer_rows(d, shown, heading):
    b = d.inv["buyer"]
    extra = []
    if "buyer_vat" in shown["dis"] and b["vat"]:
        extra.append("%s %s" % (d.lab("vat_id"), d.vat_text(b["vat"])))
    return B.party_rows(d, d.L("buyer_heading") if heading else None, b["name"], b["lines"], extra)


def seller_extra(d, shown):
    if shown["vat"] and shown["vat_loc"] in ("letterhead", "block"):
        return ["%s %s" % (d.lab("vat_id"), d.vat_text(shown["vat"]))]
    return []


def letterhead(d, y, align, shown, stacked_address):
    """Seller name big and bold, address small below. Returns new y."""
    s, rnd = d.inv["seller"], d.rnd
    x = {"left": d.x0, "right": d.x1, "center": d.W / 2}[align]
    size = rnd.choice([14, 16, 18, 20])
    y += size
    d.text(x, y, s["name"], d.bold, size, align, maxw=(d.x1 - d.x0) * 0.7)
    y += size * 0.45
    addr = s["lines"] + seller_extra(d, shown)
    if rnd.random() < 0.5:
        addr = addr + ["%s %s" % (d.L("tel"), s["phone"])]
    if stacked_address:
        y = d.lines_block(x, y, [(a, d.reg, d.small) for a in addr], (d.x1 - d.x0) * 0.5, align)
    else:
        y = d.lines_block(x, y, [(" \u00b7 ".join(addr), d.reg, d.small)], d.x1 - d.x0, align)
    return y


def arrange_window(d, shown, fields):
    rnd, s = d.rnd, d.inv["seller"]
    y = float(d.mt)
    if rnd.random() < 0.85:
        y = letterhead(d, y, rnd.choice(["left", "right"]), shown, rnd.random() < 0.4)
    win_top = max(y + 12, rnd.randint(100, 125))
    street = next((ln for ln in s["lines"] if any(st in ln for st in content.STREETS[s["country"]])), s["lines"][0])
    ret = " \u00b7 ".join([s["name"], street, s["lines"][-1]])
    d.text(d.x0, win_top + 6.5, ret, d.reg, 6.5, maxw=245)
    d.page.line(d.x0, win_top + 8.5, d.x0 + min(245, d.width(ret, d.reg, 6.5)), win_top + 8.5, 0.3)
    yb = d.lines_block(d.x0, win_top + 14, buyer_rows(d, shown, rnd.random() < 0.2), 240)
    fx0 = max(d.x0 + 265, d.W * 0.55)
    yf = B.draw_fields(d, d.k["fields"], fields, fx0, d.x1, win_top, align=rnd.choice(["left", "right"]))
    y = max(yb, yf) + 20
    return draw_title(d, y, shown=shown) + 8


def arrange_letterhead(d, shown, fields, align):
    rnd = d.rnd
    y = letterhead(d, float(d.mt), align, shown, align == "left" and rnd.random() < 0.7)
    if rnd.random() < 0.5:
        d.page.line(d.x0, y + 4, d.x1, y + 4, 0.6)
    y += 22
    bx0 = d.x0 + (d.x1 - d.x0) * rnd.choice([0.52, 0.55, 0.6])
    yb = d.lines_block(bx0, y, buyer_rows(d, shown, rnd.random() < 0.5), d.x1 - bx0)
    beside = rnd.random() < 0.5 and d.k["fields"] != "title"
    if beside:
        yf = B.draw_fields(d, d.k["fields"], fields, d.x0, bx0 - 20, y)
        y = max(yb, yf) + 18
        return draw_title(d, y, shown=shown) + 8
    y = draw_title(d, max(yb, y) + 18, shown=shown) + 4
    return B.draw_fields(d, d.k["fields"], fields, d.x0, d.x1, y) + 8


def arrange_two_columns(d, shown, fields):
    rnd, s = d.rnd, d.inv["seller"]
    right = rnd.random() < 0.3
    y = draw_title(d, float(d.mt), x=d.x1 if right else d.x0, align="right" if right else "left", shown=shown) + 10
    mid = d.x0 + (d.x1 - d.x0) / 2
    left = B.party_rows(d, d.L("seller_heading"), s["name"], s["lines"], seller_extra(d, shown))
    right = buyer_rows(d, shown, True)
    if rnd.random() < 0.25:
        left, right = right, left
    if rnd.random() < 0.5:  # boxed columns
        y1 = d.lines_block(d.x0 + 4, y + 4, left, mid - d.x0 - 18)
        y2 = d.lines_block(mid + 4, y + 4, right, d.x1 - mid - 8)
        h = max(y1, y2) - y + 4
        d.page.rect(d.x0, y, mid - d.x0 - 10, h)
        d.page.rect(mid, y, d.x1 - mid, h)
        y += h + 14
    else:
        y = max(d.lines_block(d.x0, y, left, mid - d.x0 - 14), d.lines_block(mid, y, right, d.x1 - mid)) + 14
    return B.draw_fields(d, d.k["fields"], fields, d.x0, d.x1, y) + 8


def arrange_footer_only(d, shown, fields):
    rnd = d.rnd
    right = rnd.random() < 0.5 and not shown["title_line"]
    y = draw_title(d, float(d.mt), x=d.x1 if right else d.x0, align="right" if right else "left", shown=shown) + 14
    yb = d.lines_block(d.x0, y, buyer_rows(d, shown, rnd.random() < 0.6), 250)
    fx0 = max(d.x0 + 270, d.W * 0.55)
    yf = B.draw_fields(d, d.k["fields"], fields, fx0, d.x1, y)
    return max(yb, yf) + 18


def draw_top(d, shown):
    fields = build_fields(d, shown)
    arr = d.k["parties"]
    if arr == "window":
        return arrange_window(d, shown, fields)
    if arr == "letterhead_left":
        return arrange_letterhead(d, shown, fields, "left")
    if arr == "letterhead_center":
        return arrange_letterhead(d, shown, fields, "center")
    if arr == "two_columns":
        return arrange_two_columns(d, shown, fields)
    if arr == "footer_only":
        return arrange_footer_only(d, shown, fields)
    raise ValueError(arr)
