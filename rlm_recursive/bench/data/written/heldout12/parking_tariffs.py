"""Harrowgate Valley Council -- off-street and on-street parking tariffs.

This module is the single source of truth for the pay & display machines, the
phone-payment provider export (see ``export_provider_csv``) and the web
"how much will it cost" calculator. Change the tables here, not in the
machine configuration.

Tariffs approved by Cabinet 14 October 2026 (decision ref. CAB/26/118),
effective 1 December 2026. Previous tariffs are kept in ``tariffs_2025.py``
until 31 March 2027 for refunds and appeals.

Maintainer: Parking Services systems team <parking-systems@hvcouncil.invalid>
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, ROUND_HALF_UP
from datetime import time

# ---------------------------------------------------------------------------
# Bands. Prices in pounds, per hour unless ``flat_day`` is set.
# NB: band C was split into C and C2 in 2026 (C2 = seafront summer uplift,
#     which we don't have, so C2 is currently unused but the machines expect it).
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Band:
    code: str
    hourly: Decimal
    max_day: Decimal | None      # daily cap, None = no cap
    flat_day: Decimal | None = None   # if set, the only tariff is this flat fee
    first_30_free: bool = False


BANDS: dict[str, Band] = {
    "A":  Band("A",  hourly=Decimal("2.60"), max_day=None),            # town centre short stay
    "B":  Band("B",  hourly=Decimal("1.90"), max_day=Decimal("11.00")),
    "C":  Band("C",  hourly=Decimal("1.20"), max_day=Decimal("6.50")),
    "C2": Band("C2", hourly=Decimal("1.50"), max_day=Decimal("8.00")),  # unused
    "D":  Band("D",  hourly=Decimal("0.80"), max_day=Decimal("4.00"), first_30_free=True),
    "P":  Band("P",  hourly=Decimal("0"),    max_day=None, flat_day=Decimal("3.50")),  # park & ride
}

# ---------------------------------------------------------------------------
# Zones. (code, name, band, max stay in minutes, charging hours, spaces)
# Max stay None = no limit. Charging hours are local time, Mon-Sat unless
# ``sunday`` is True. Space counts from the 2026 asset survey (disabled bays
# included).
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Zone:
    code: str
    name: str
    band: str
    max_stay_min: int | None
    start: time
    end: time
    spaces: int
    sunday: bool = False


ZONES: list[Zone] = [
    Zone("HG-01", "Queen's Walk (on-street)",         "A", 120, time(8), time(18), 46),
    Zone("HG-02", "Market Street multi-storey",       "B", None, time(7), time(20), 412, sunday=True),
    Zone("HG-03", "Market Street (on-street)",        "A", 60,  time(8), time(18), 28),
    Zone("HG-04", "Cattle Market long stay",          "C", None, time(8), time(18), 236),
    Zone("HG-05", "Library & Civic Centre",           "B", 240, time(8), time(18), 64),
    Zone("NG-01", "Northgate Cobble Row",             "B", 180, time(8), time(18), 38),
    Zone("NG-02", "Northgate Station",                "C", None, time(6), time(20), 180, sunday=True),
    Zone("NG-03", "Northgate Leisure Centre",         "D", 240, time(8), time(21), 120),
    Zone("LB-01", "Low Bridge Wharf",                 "B", None, time(8), time(18), 95, sunday=True),
    Zone("LB-02", "Low Bridge Ferry Terminal",        "C", None, time(6), time(22), 150, sunday=True),
    Zone("LB-03", "Low Bridge Riverside (on-street)", "D", 120, time(9), time(17), 22),
    Zone("PR-01", "Harrowgate South Park & Ride",     "P", None, time(6), time(19), 600),
]

# Vehicles over 5.25m long pay double in any zone that is not band P.
# Coaches are banned from on-street zones (see TRO 2019/44) -- the machines
# enforce that, not this module.
LONG_VEHICLE_MULTIPLIER = Decimal("2")

# Blue Badge holders: free in all council car parks and on-street, no time
# limit in car parks, 3 hours max on-street (national rule). Not modelled here.

# ---------------------------------------------------------------------------
# Permits (annual, pounds). Resident permits are per vehicle; 2nd vehicle
# pays the "second" rate. Business permits are zone-specific.
# ---------------------------------------------------------------------------

PERMITS: dict[str, dict[str, Decimal]] = {
    "resident":        {"first": Decimal("95.00"),  "second": Decimal("160.00")},
    "resident_ev":     {"first": Decimal("45.00"),  "second": Decimal("95.00")},
    "business_HG-04":  {"first": Decimal("640.00")},
    "business_NG-02":  {"first": Decimal("580.00")},
    "business_LB-02":  {"first": Decimal("520.00")},
    "carer":           {"first": Decimal("0.00")},
}

_PENNY = Decimal("0.01")


def zone_by_code(code: str) -> Zone:
    for z in ZONES:
        if z.code == code:
            return z
    raise KeyError(f"unknown zone {code!r}")


def charge(zone_code: str, minutes: int, long_vehicle: bool = False) -> Decimal:
    """Return the charge in pounds for a stay of ``minutes`` in a zone.

    Rounds part hours UP to the next half hour (Cabinet decision, para 4.3).
    Applies the band's daily cap. Does not know about Sundays or free
    periods outside charging hours -- the caller checks that.
    """
    z = zone_by_code(zone_code)
    if z.max_stay_min is not None and minutes > z.max_stay_min:
        raise ValueError(f"{zone_code}: max stay is {z.max_stay_min} min")
    b = BANDS[z.band]
    if b.flat_day is not None:
        price = b.flat_day
    else:
        billable = minutes
        if b.first_30_free:
            billable = max(0, minutes - 30)
        half_hours = -(-billable // 30)      # ceil
        price = b.hourly * half_hours / 2
        if b.max_day is not None:
            price = min(price, b.max_day)
    if long_vehicle and z.band != "P":
        price *= LONG_VEHICLE_MULTIPLIER
    return price.quantize(_PENNY, rounding=ROUND_HALF_UP)


def export_provider_csv() -> str:
    """One line per zone in the phone-payment provider's import format."""
    lines = ["location_code,description,tariff_band,hourly_gbp,max_stay_min,sunday"]
    for z in ZONES:
        b = BANDS[z.band]
        lines.append(
            f"{z.code},{z.name},{z.band},{b.hourly},"
            f"{'' if z.max_stay_min is None else z.max_stay_min},{int(z.sunday)}"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # quick manual check, not a test
    for code, mins in [("HG-01", 90), ("NG-03", 45), ("LB-02", 600), ("PR-01", 300)]:
        print(code, mins, "min ->", charge(code, mins))
    # TODO(PS-812): Sunday charging for HG-05 from April 2027 if Cabinet agrees
