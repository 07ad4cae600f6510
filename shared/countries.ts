// ISO 3166-1 countries by alpha-2 code and numeric code. The hosted service names a
// project's country `/api/countries/<numeric id>/` (facts section 15): 036 is
// Australia, given as 36. Ours named it by ISO2; both resolve, and `country_iso2`
// stays the project's own field.

const TABLE =
  'AF004 AX248 AL008 DZ012 AS016 AD020 AO024 AI660 AQ010 AG028 AR032 AM051 AW533 AU036 AT040 AZ031 BS044 BH048 BD050 BB052 ' +
  'BY112 BE056 BZ084 BJ204 BM060 BT064 BO068 BQ535 BA070 BW072 BV074 BR076 IO086 BN096 BG100 BF854 BI108 CV132 KH116 CM120 ' +
  'CA124 KY136 CF140 TD148 CL152 CN156 CX162 CC166 CO170 KM174 CG178 CD180 CK184 CR188 CI384 HR191 CU192 CW531 CY196 CZ203 ' +
  'DK208 DJ262 DM212 DO214 EC218 EG818 SV222 GQ226 ER232 EE233 SZ748 ET231 FK238 FO234 FJ242 FI246 FR250 GF254 PF258 TF260 ' +
  'GA266 GM270 GE268 DE276 GH288 GI292 GR300 GL304 GD308 GP312 GU316 GT320 GG831 GN324 GW624 GY328 HT332 HM334 VA336 HN340 ' +
  'HK344 HU348 IS352 IN356 ID360 IR364 IQ368 IE372 IM833 IL376 IT380 JM388 JP392 JE832 JO400 KZ398 KE404 KI296 KP408 KR410 ' +
  'KW414 KG417 LA418 LV428 LB422 LS426 LR430 LY434 LI438 LT440 LU442 MO446 MG450 MW454 MY458 MV462 ML466 MT470 MH584 MQ474 ' +
  'MR478 MU480 YT175 MX484 FM583 MD498 MC492 MN496 ME499 MS500 MA504 MZ508 MM104 NA516 NR520 NP524 NL528 NC540 NZ554 NI558 ' +
  'NE562 NG566 NU570 NF574 MK807 MP580 NO578 OM512 PK586 PW585 PS275 PA591 PG598 PY600 PE604 PH608 PN612 PL616 PT620 PR630 ' +
  'QA634 RE638 RO642 RU643 RW646 BL652 SH654 KN659 LC662 MF663 PM666 VC670 WS882 SM674 ST678 SA682 SN686 RS688 SC690 SL694 ' +
  'SG702 SX534 SK703 SI705 SB090 SO706 ZA710 GS239 SS728 ES724 LK144 SD729 SR740 SJ744 SE752 CH756 SY760 TW158 TJ762 TZ834 ' +
  'TH764 TL626 TG768 TK772 TO776 TT780 TN788 TR792 TM795 TC796 TV798 UG800 UA804 AE784 GB826 US840 UM581 UY858 UZ860 VU548 ' +
  'VE862 VN704 VG092 VI850 WF876 EH732 YE887 ZM894 ZW716';

const NUMERIC_BY_ISO2 = new Map<string, number>();
const ISO2_BY_NUMERIC = new Map<number, string>();
for (const entry of TABLE.split(' ')) {
  const iso2 = entry.slice(0, 2);
  const numeric = Number(entry.slice(2));
  NUMERIC_BY_ISO2.set(iso2, numeric);
  ISO2_BY_NUMERIC.set(numeric, iso2);
}

/** Every alpha-2 code of the table, in the table's order: what a country picker offers. */
export const COUNTRY_CODES: readonly string[] = [...NUMERIC_BY_ISO2.keys()];

/** The ISO 3166 numeric code of an alpha-2 code (any case); undefined for a code not in the table. */
export function countryNumericCode(iso2: string): number | undefined {
  return NUMERIC_BY_ISO2.get(iso2.toUpperCase());
}

/** The alpha-2 code of an ISO 3166 numeric code; undefined for a number not in the table. */
export function countryIso2OfNumeric(numeric: number): string | undefined {
  return ISO2_BY_NUMERIC.get(numeric);
}

/**
 * Reads a country reference: `/api/countries/<numeric or ISO2>/` (absolute or a
 * path), a bare numeric code or an ISO2 code -> the ISO2 code; null when it names no
 * country in the table.
 */
export function parseCountryReference(reference: unknown): string | null {
  if (typeof reference === 'number') return Number.isInteger(reference) ? countryIso2OfNumeric(reference) ?? null : null;
  if (typeof reference !== 'string') return null;
  const match = /(?:^|\/api\/countries\/)([A-Za-z]{2}|\d{1,3})\/?$/.exec(reference.trim());
  if (!match) return null;
  const key = match[1]!;
  if (/^\d+$/.test(key)) return countryIso2OfNumeric(Number(key)) ?? null;
  return NUMERIC_BY_ISO2.has(key.toUpperCase()) ? key.toUpperCase() : null;
}
