"""Named receipt layout families: country, shop kinds, paper and font, and knob settings.

Knobs (a list means one value is drawn per receipt from its seed; a float is a probability):
  countries, kinds        where and what kind of shop (grocery, restaurant, cafe, hardware,
                          pharmacy, petrol)
  paper                   58 / 80 (mm roll)       font   Courier / Helvetica
  arrange                 item rows: twoline (desc, then qty x price + amount), code (item code
                          line), qty_first (qty desc amount), desc_amount (desc amount, qty x
                          price on its own row), columns (header + qty/price/amount columns)
  meta, meta_pos          receipt-number/date/cashier block: kv, pairs, compact, dt_line;
                          top (under the header) or bottom (after the payment)
  logo, franchise, two_line_name, left_header, branch, no_address, no_date, member,
  voucher, barcode, tse, codes, weighed, item_discount, bill_discount, service, cash,
  big_total, qty_above    probabilities
  tax_style               included-tax summary: table, lines, one
  cur                     currency display: none, label (TOTAL RM), totals_prefix, totals_suffix,
                          all_prefix, header
  flags                   tax flags after item amounts: letters, none, rate
  years, dates, items     date range, date patterns (receipt_locale), (min, max) item count
"""

FAMILIES = {
    "my_mono_gst": dict(
        countries=["MY"], kinds=["grocery", "pharmacy", "grocery"], paper=[80], font=["Courier"], years=(2015, 2017),
        arrange=["twoline", "twoline", "code"], meta=["kv", "pairs"], logo=0.2, two_line_name=0.4, tax_style=["table"],
        cur=["none", "label", "totals_prefix"], flags=["letters"], member=0.3, items=(2, 10),
        comment="Malaysian GST-era tax invoice, Courier 80 mm: SDN BHD + (123456-X), GST Reg No, desc / qty x price rows, "
                "S/Z GST summary, 0.05 rounding adjustment"),
    "my_restaurant_sst": dict(
        countries=["MY"], kinds=["restaurant", "cafe"], paper=[58, 80], font=["Helvetica", "Courier"], years=(2019, 2023),
        arrange=["qty_first", "columns"], meta=["pairs", "kv"], logo=0.35, franchise=0.5, two_line_name=0.3, service=0.8,
        cur=["none", "label", "totals_prefix"], flags=["none"], items=(2, 8),
        comment="Malaysian restaurant / kopitiam bill: franchise ('Licensee of ...') line, table + pax, service charge 10 %, "
                "SST 6 %, rounding, cash + change"),
    "my_hardware_codes": dict(
        countries=["MY"], kinds=["hardware"], paper=[80], font=["Courier"], years=(2015, 2021),
        arrange=["columns", "code"], codes=0.4, meta=["kv", "pairs"], two_line_name=0.5, member=0.5, items=(2, 9),
        bill_discount=0.2, cur=["none", "header", "label"], flags=["letters", "none"],
        comment="Malaysian hardware shop cash bill: two-line name, Co. Reg. No., item codes, Qty / U.Price / Amount columns, "
                "member card expiry distractor"),
    "sg_retail_gst_incl": dict(
        countries=["SG"], kinds=["grocery", "pharmacy"], paper=[80], font=["Helvetica", "Courier"],
        arrange=["twoline", "desc_amount"], meta=["kv", "dt_line"], logo=0.4, member=0.4, voucher=0.4, items=(3, 10),
        cash=0.5, cur=["totals_prefix", "none"], flags=["none"],
        comment="Singapore retail: PTE LTD, UEN / GST Reg No, S$, GST 7 % included one-liner, NETS / card or cash, "
                "voucher 'valid until' date"),
    "sg_kopitiam_58": dict(
        no_address=0.15,
        countries=["SG"], kinds=["restaurant", "cafe"], paper=[58], font=["Courier"], arrange=["qty_first"],
        meta=["pairs", "kv", "compact"], service=0.7, items=(2, 6), cur=["none", "totals_prefix"], flags=["none"],
        comment="Singapore coffee-shop / zi char bill on a 58 mm roll (30-32 columns): 10 % service + 7 % GST added, qty-first rows"),
    "us_grocery_sku": dict(
        countries=["US"], kinds=["grocery", "pharmacy"], paper=[80], font=["Courier"], upper=0.9,
        arrange=["desc_amount", "columns"], codes=0.6, meta=["compact", "pairs"], meta_pos=["top", "bottom"],
        item_discount=0.15, cash=0.5, member=0.3, items=(3, 12), cur=["none", "totals_prefix", "all_prefix"],
        flags=["letters"], barcode=0.6,
        comment="US grocery / drugstore: month-first dates, item codes, T/N taxable flags, coupons with trailing minus, "
                "sales tax on taxable items, survey 'offer expires' date"),
    "us_diner_tips": dict(
        countries=["US"], kinds=["restaurant", "cafe"], paper=[80, 58], font=["Helvetica", "Courier"],
        arrange=["qty_first", "columns"], meta=["pairs", "kv"], cash=0.4, items=(2, 8), cur=["totals_prefix", "all_prefix"],
        flags=["none"], dates=["{m}/{d}/{Y}", "{m}/{d}/{y}", "{B} {d}, {Y}", "{b} {e}, {Y}"],
        comment="US diner / café guest check: server, table, guests, sales tax, suggested gratuity amounts (15/18/20 %) "
                "as distractors, tip line"),
    "us_gas_station": dict(
        no_address=0.1,
        countries=["US"], kinds=["petrol"], paper=[58, 80], font=["Courier"], upper=1.0, arrange=["twoline"],
        meta=["kv", "compact"], cash=0.35, items=(1, 3), cur=["all_prefix", "totals_prefix"], flags=["none"],
        comment="US gas station: pump number, gallons @ price/gal with 3 decimals, card slip lines (TID, APPR CODE, AID)"),
    "uk_supermarket_vat": dict(
        countries=["UK"], kinds=["grocery", "pharmacy"], paper=[80], font=["Courier", "Helvetica"],
        arrange=["desc_amount", "twoline"], meta=["compact", "kv"], meta_pos=["bottom", "top"], item_discount=0.15,
        member=0.4, items=(3, 12), cur=["totals_prefix", "none"], flags=["letters"], tax_style=["table", "lines"],
        comment="UK supermarket / chemist: LTD, VAT Reg No GB..., £, V/Z VAT codes and summary, 'Balance due', "
                "loyalty points, date/time at the bottom"),
    "uk_cafe_58": dict(
        no_address=0.15, no_date=0.1,
        countries=["UK"], kinds=["cafe", "restaurant"], paper=[58], font=["Helvetica"], arrange=["qty_first"],
        meta=["kv", "dt_line"], logo=0.3, service=0.5, items=(2, 7), cur=["totals_prefix"], flags=["none"],
        tax_style=["one", "lines"],
        comment="UK café / pub receipt on 58 mm in Helvetica: optional 12.5 % service, 'VAT included' line, card payment"),
    "au_tax_invoice": dict(
        countries=["AU"], kinds=["cafe", "grocery"], paper=[80, 58], font=["Helvetica", "Courier"],
        arrange=["qty_first", "twoline"], meta=["kv", "pairs"], logo=0.3, items=(2, 8), cur=["totals_prefix", "all_prefix"],
        flags=["letters"], cash=0.5,
        comment="Australian 'TAX INVOICE' with ABN, Pty Ltd, GST-free item markers, 'Total includes GST', EFTPOS or cash "
                "with 0.05 rounding"),
    "in_gst_bill": dict(
        countries=["IN"], kinds=["restaurant", "grocery", "pharmacy"], paper=[80], font=["Courier", "Helvetica"],
        arrange=["columns"], meta=["pairs", "kv"], items=(2, 9), cur=["label", "totals_prefix", "none"], flags=["none"],
        comment="Indian GST bill: Pvt Ltd, GSTIN, FSSAI/CIN, Item / Qty / Rate / Amount columns, CGST + SGST halves, "
                "Round Off to the rupee, Rs. amounts with Indian grouping"),
    "de_kassenbon": dict(
        countries=["DE"], kinds=["grocery", "grocery", "hardware"], paper=[80], font=["Courier"], upper=0.4,
        arrange=["desc_amount"], weighed=0.2, qty_above=0.5, meta=["compact", "kv"], meta_pos=["bottom", "top"],
        item_discount=0.12, tse=0.7, items=(3, 12), cur=["label", "none", "totals_suffix"], flags=["letters"],
        tax_style=["table"], codes=0.15,
        comment="German supermarket / DIY Kassenbon: GmbH, decimal comma, A/B tax letters, weighed items (kg x EUR/kg), "
                "SUMME EUR, Gegeben / Rückgeld, MwSt table (Netto/MwSt/Brutto), TSE block with ISO time stamps"),
    "de_baeckerei_58": dict(
        no_address=0.1,
        countries=["DE"], kinds=["cafe", "pharmacy"], paper=[58], font=["Helvetica", "Courier"], arrange=["qty_first", "desc_amount"],
        meta=["kv", "dt_line"], tse=0.4, items=(1, 6), cur=["totals_suffix", "label"], flags=["none", "letters"],
        tax_style=["lines", "one"], left_header=0.3,
        comment="German bakery / pharmacy on 58 mm: e.K. / GmbH, 'inkl. MwSt' lines, Beleg-Nr., sometimes left-aligned header"),
    "ch_rounding": dict(
        countries=["CH"], kinds=["grocery", "restaurant", "cafe"], paper=[80], font=["Courier", "Helvetica"],
        arrange=["desc_amount", "qty_first"], weighed=0.25, meta=["kv", "compact"], cash=0.7, items=(2, 10),
        cur=["label", "totals_prefix"], flags=["letters", "none"], tax_style=["table"],
        comment="Swiss receipt: AG / GmbH, CHE-...MWST, CHF with 1'234.50 notation, 0.05 Rundung when paid cash, "
                "MWST 7.7 / 2.5 table"),
    "fr_ticket_ttc": dict(
        countries=["FR"], kinds=["grocery", "hardware"], paper=[80], font=["Courier"], arrange=["desc_amount", "columns"],
        meta=["compact", "kv"], meta_pos=["top", "bottom"], items=(3, 11), taxid_pos=["footer", "after_addr"],
        cur=["totals_suffix", "label"], flags=["letters"], tax_style=["table"],
        comment="French ticket de caisse: SARL / SAS, SIRET + TVA intracom, TOTAL TTC, Espèces / Rendu, TVA table "
                "(HT / TVA / TTC) with 5,5 / 20 %"),
    "fr_brasserie": dict(
        no_date=0.1,
        countries=["FR"], kinds=["restaurant", "cafe"], paper=[80, 58], font=["Helvetica"], arrange=["qty_first", "columns"],
        meta=["pairs", "dt_line"], logo=0.3, items=(2, 8), cur=["totals_suffix"], flags=["none", "rate"],
        tax_style=["one", "lines"],
        comment="French brasserie addition: Table / Couverts / Serveur, 10 % and 20 % TVA, 'dont TVA', 'Le 25/12/2018 à 14h32'"),
    "nl_kassabon": dict(
        countries=["NL"], kinds=["grocery", "cafe"], paper=[80], font=["Courier", "Helvetica"], arrange=["desc_amount", "twoline"],
        weighed=0.15, meta=["kv", "compact"], meta_pos=["top", "bottom"], item_discount=0.15, cash=0.5, items=(3, 10),
        cur=["none", "totals_suffix", "label"], flags=["letters", "none"], tax_style=["table", "lines"],
        comment="Dutch kassabon: B.V., KvK + BTW-nr, Bonus korting lines, BTW 9 / 21 %, PIN or contant with afronding to 0,05"),
    "it_scontrino": dict(
        countries=["IT"], kinds=["grocery", "cafe", "restaurant"], paper=[80, 58], font=["Courier"],
        arrange=["desc_amount", "columns"], meta=["compact", "kv"], meta_pos=["bottom"], items=(2, 9),
        cur=["label", "none"], flags=["rate"], tax_style=["one", "table"], taxid_pos=["top", "after_addr"],
        titles=["DOCUMENTO COMMERCIALE", "DOCUMENTO COMMERCIALE di vendita o prestazione", "Scontrino"],
        comment="Italian documento commerciale: S.r.l., P.IVA, per-line IVA % column, TOTALE COMPLESSIVO, di cui IVA, "
                "Pagamento contante / Resto, RT number and DOCUMENTO N."),
    "mixed_petrol": dict(
        countries=["UK", "DE", "MY", "AU", "FR", "IN", "NL"], kinds=["petrol"], paper=[80, 58], font=["Courier", "Helvetica"],
        arrange=["twoline", "desc_amount"], meta=["kv", "pairs"], items=(1, 3), logo=0.5, cash=0.4, flags=["none", "letters"],
        comment="Petrol stations in seven countries: pump number, litres x price per litre (3 decimals), shop items, card slip"),
    "mixed_logo_franchise": dict(
        countries=["MY", "SG", "AU", "UK", "IN"], kinds=["restaurant", "cafe", "grocery"], paper=[80, 58],
        font=["Helvetica", "Courier"], arrange=["qty_first", "twoline", "columns"], meta=["kv", "pairs", "dt_line"],
        logo=0.9, franchise=0.6, two_line_name=0.6, branch=0.6, member=0.3, voucher=0.4, items=(2, 8),
        comment="Brand logo (inverted box, big or framed word) above a different legal name, franchise/licensee lines, "
                "two-line names, outlet lines before the address"),
}


def describe():
    return [(name, ",".join(spec["countries"]), spec["comment"]) for name, spec in FAMILIES.items()]
