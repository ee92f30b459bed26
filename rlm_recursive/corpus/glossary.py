"""Record labels in other languages, read as the English words a question asks with.

People keep their records in their own language and ask in English: a Swedish ringing log
heads its column "Vikt" for the weight, a Dutch ledger notes "factuurnr" for the invoice
number, a German log writes "km-Stand" for the odometer. Matching is by words, so a label
word of another language also says the English words of its meaning. The list holds the
words records use as labels (German, Dutch, French, Spanish, Italian, Portuguese, Swedish,
Norwegian, Danish), never a word that is also an English word ("Art" is a species in
Swedish and art in English, "lid" a member in Dutch): such a word keeps its English sense.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable

__all__ = ["glossed", "with_english"]

_MEANINGS: dict[str, str] = {
    "date": "datum fecha dato",
    "time": "zeit uhrzeit tijd hora heure tid klokkeslett",
    "name": "naam nombre nom namn navn nome",
    "weight": "gewicht peso poids vikt vekt vægt",
    "price": "preis prijs precio prix pris prezzo preço",
    "amount": "betrag bedrag importe montant belopp beløp beløb importo summe",
    "total": "gesamt gesamtbetrag totaal totalt totale",
    "invoice": "rechnung rechnungsnr factuur factuurnr factura facture faktura fattura",
    "number": "nummer número numéro numero nr nº",
    "quantity": "menge anzahl aantal cantidad quantité antal antall quantità",
    "customer": "kunde klant cliente kund",
    "address": "adresse adres dirección direccion adress indirizzo",
    "phone": "telefon telefoon teléfono telefono téléphone",
    "payment paid": "zahlung bezahlt betaling betaald pago pagado paiement payé betalning betalt "
                    "betald",
    "balance": "saldo solde",
    "owner": "eigentümer eigentuemer eigenaar propietario propietaria propriétaire ägare "
             "eier ejer",
    "member membership": "mitglied mitgl socio membre adhérent medlem medl medlemsnr "
                         "medlemsnummer",
    "note remark": "bemerkung anmerkung notiz opmerking opmerkingen observaciones "
                   "remarque anmärkning anm merknad bemærkning",
    "age": "leeftijd edad âge ålder",
    "sex": "geschlecht geslacht sexo kön kjønn køn",
    "species": "soort especie espèce",
    "wing": "flügel vleugel vinge vinga",
    "length": "länge lengte longitud longueur längd lengde længde",
    "height": "höhe hoogte altura hauteur höjd høyde højde",
    "temperature": "temperatur temperatuur temperatura température",
    "room": "zimmer raum kamer habitación chambre",
    "meter reading": "zählerstand meterstand lectura relevé mätarställning målerstand "
                     "målerstand",
    "meter": "zähler contador compteur mätare måler contatore",
    "serial": "matricola seriennummer serienummer serienr",
    "electricity": "strom stroom electricidad électricité ström strøm",
    "water": "wasser agua vatten vann vand",
    "fee charge": "gebühr beitrag bijdrage contributie cuota cotisation avgift afgift",
    "rent": "miete huur alquiler loyer hyra husleje",
    "pay salary wage": "gehalt lohn salaris salario sueldo salaire lön lønn løn",
    "net": "netto",
    "gross": "brutto",
    "debt outstanding": "schulden offen schuld openstaand deuda pendiente impayé skuld "
                        "gjeld",
    "receipt": "quittung kassenbon kassabon recibo reçu kvitto kvittering",
    "description": "beschreibung omschrijving descripción concepto libellé beskrivning "
                   "beskrivelse",
    "category": "kategorie categorie categoría catégorie kategori",
    "year": "jahr jaar año année",
    "month": "monat maand mes mois månad måned",
    "day": "dag día jour",
    "week": "woche semana semaine vecka uke uge",
    "guest": "gast huésped gäst gjest gæst",
    "arrival arrived": "ankunft aankomst llegada arrivée ankomst",
    "departure left": "abfahrt abreise vertrek salida départ avresa avreise",
    "odometer mileage": "kilometerstand km-stand tachostand",
    "distance": "strecke entfernung afstand distancia distanza avstånd",
    "purpose reason": "zweck grund doel motivo ändamål formål",
    "driver": "fahrer chauffeur förare sjåfør",
    "order": "bestellung bestelling pedido commande beställning bestilling",
    "delivery": "lieferung levering entrega livraison leverans",
    "supplier": "lieferant leverancier proveedor fournisseur leverantör leverandør",
    "account": "konto rekening cuenta compte",
    "statement": "kontoauszug afschrift extracto relevé",
    "tax vat": "steuer mwst ust belasting iva tva mva",
    "signature signed": "unterschrift handtekening signatur",
    "donation donor": "spende spenden spender schenking donación donativo donazione gåva "
                      "donasjon",
    "issued": "ausgestellt uitgegeven emitido émis utfärdad utstedt",
    "cash till": "kasse kassa barkasse kas efectivo caja espèces contanti kontant kontanter",
    "difference discrepancy": "differenz verschil diferencia différence differenza skillnad "
                              "forskjell forskel",
    "registration plate": "kennzeichen kenteken matrícula matricula immatriculation targa "
                          "registreringsnummer",
    "closed": "geschlossen gesloten cerrado fermé chiuso stängd stengt lukket",
    "fuel diesel": "gasoil gazole gasóleo brandstof carburant bränsle drivstoff kraftstoff",
    "school": "schule escuela école scuola skola skole",
    "berth mooring jetty pier": "liegeplatz ligplaats amarre amarradero brygga bryggplats "
                                "båtplats bryggeplass",
    "spot place": "platz plaats lugar plats plass plads",
}
"""English words, and the labels of other languages that mean them."""



@functools.cache
def _glossary(stem: Callable[[str], list[str]]) -> dict[tuple[str, ...], frozenset[str]]:
    """Each label's stems (a compound's in order: "km-Stand"), and the English stems of its
    meaning (stemmed as units are)."""
    out: dict[tuple[str, ...], frozenset[str]] = {}
    for english, labels in _MEANINGS.items():
        for label in labels.split():
            key = tuple(stem(label))
            if key:
                out[key] = out.get(key, frozenset()) | frozenset(stem(english))
    return out


def glossed(words: Iterable[str], stem: Callable[[str], list[str]]) -> frozenset[str]:
    """The English stems the given stems (in order) mean, when they are labels of another
    language, a word or a compound of two ("km-Stand": odometer)."""
    table = _glossary(stem)
    said = list(words)
    out: frozenset[str] = frozenset()
    for at, word in enumerate(said):
        for key in ((word,), tuple(said[at:at + 2])):
            out |= table.get(key, frozenset())
    return out


@functools.cache
def _english_of(stem: Callable[[str], list[str]]) -> dict[str, str]:
    """Each label's stem, and the English words of its meaning as written."""
    return {words[0]: english for english, labels in _MEANINGS.items()
            for label in labels.split() if len(words := stem(label)) == 1}


_WORD = re.compile(r"[^\W\d_][\w'’-]*")


def with_english(text: str, stem: Callable[[str], list[str]]) -> str:
    """`text` with the English words of each label of another language written after it
    ("Vikt: 10.9" → "Vikt weight: 10.9"), for readers that look for an English label
    beside a value."""
    table = _english_of(stem)

    def add(match: re.Match[str]) -> str:
        english = next((table[w] for w in stem(match.group()) if w in table), None)
        return f"{match.group()} {english}" if english else match.group()

    return _WORD.sub(add, text)
