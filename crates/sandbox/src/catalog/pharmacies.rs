//! The built-in pharmacy list: fictional pharmacies at realistic US addresses.
//! Phone numbers use the 555-01xx range reserved for fiction.

/// `(id, name, phone, street1, street2, city, state, postal code)`.
pub(super) const PHARMACIES: &[(&str, &str, Option<&str>, &str, Option<&str>, &str, &str, &str)] = &[
    ("phr_maple_street", "Maple Street Pharmacy", Some("(503) 555-0110"), "1420 SE Maple Street", None, "Portland", "OR", "97214"),
    ("phr_birch_family", "Birch Family Drugs", Some("(614) 555-0121"), "88 Birch Avenue", Some("Suite 2"), "Columbus", "OH", "43215"),
    ("phr_harbor_light", "Harbor Light Pharmacy", Some("(207) 555-0132"), "310 Commercial Street", None, "Portland", "ME", "04101"),
    ("phr_riverbend", "Riverbend Community Pharmacy", Some("(512) 555-0143"), "2401 S Congress Avenue", None, "Austin", "TX", "78704"),
    ("phr_cedar_hills", "Cedar Hills Apothecary", Some("(801) 555-0154"), "455 E 400 S", None, "Salt Lake City", "UT", "84111"),
    ("phr_prairie_wind", "Prairie Wind Pharmacy", Some("(402) 555-0165"), "1200 O Street", None, "Lincoln", "NE", "68508"),
    ("phr_bayview", "Bayview Health Pharmacy", Some("(415) 555-0176"), "2250 3rd Street", Some("Unit 104"), "San Francisco", "CA", "94107"),
    ("phr_magnolia", "Magnolia Corner Drugstore", Some("(504) 555-0187"), "3127 Magazine Street", None, "New Orleans", "LA", "70115"),
    ("phr_summit_peak", "Summit Peak Pharmacy", Some("(303) 555-0198"), "1600 Champa Street", None, "Denver", "CO", "80202"),
    ("phr_lakeshore", "Lakeshore Family Pharmacy", Some("(312) 555-0109"), "845 N Michigan Avenue", Some("Floor 2"), "Chicago", "IL", "60611"),
    ("phr_old_mill", "Old Mill Pharmacy", Some("(802) 555-0118"), "27 Main Street", None, "Burlington", "VT", "05401"),
    ("phr_desert_bloom", "Desert Bloom Pharmacy", Some("(602) 555-0127"), "3300 N Central Avenue", None, "Phoenix", "AZ", "85012"),
    ("phr_evergreen_24", "Evergreen 24-Hour Pharmacy", Some("(206) 555-0136"), "1530 Broadway", None, "Seattle", "WA", "98122"),
    ("phr_peachtree", "Peachtree Neighborhood Pharmacy", Some("(404) 555-0145"), "1180 Peachtree Street NE", None, "Atlanta", "GA", "30309"),
];
