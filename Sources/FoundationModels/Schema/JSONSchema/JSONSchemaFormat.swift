/// The JSON Schema `format`s the decoder enforces, each as a regular expression the whole string must match.
///
/// Every pattern describes a *subset* of the format (generation may narrow, never loosen): years 1000–2999 and no
/// leap days or leap seconds in dates and times, ASCII host names with at most three labels and a final label that
/// starts with a letter, `http`/`https` URIs, dot-atom e-mail addresses, fully written IPv6 addresses, and regular
/// expressions, pointers and URI templates without special characters. Formats not listed here are annotations:
/// a schema using one imports with a warning, and its strings are unconstrained.
package enum JSONSchemaFormat {
    private static let year = "[12][0-9]{3}"
    private static let monthDay =
        "(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))"
    private static let date = "\(year)-\(monthDay)"
    private static let time =
        "(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\\.[0-9]{1,6})?(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])"
    private static let label = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    private static let topLabel = "[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    private static let hostname = "(?:\(label)\\.){0,2}\(topLabel)"
    private static let octet = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
    private static let uriCharacter = "(?:[A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-F]{2})"
    private static let uri =
        "https?://\(hostname)(?::[1-9][0-9]{0,3})?(?:/\(uriCharacter)*)*(?:\\?(?:\(uriCharacter)|[/?])*)?"
        + "(?:#(?:\(uriCharacter)|[/?])*)?"
    private static let email = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@\(hostname)"
    private static let hex = "[0-9a-f]"

    /// Whole-match patterns by format name.
    package static let patterns: [String: String] = [
        "date": date,
        "time": time,
        "date-time": "\(date)T\(time)",
        "email": email,
        "idn-email": email,
        "hostname": hostname,
        "idn-hostname": hostname,
        "ipv4": "\(octet)(?:\\.\(octet)){3}",
        "ipv6": "\(hex){1,4}(?::\(hex){1,4}){7}",
        "uuid": "\(hex){8}-\(hex){4}-\(hex){4}-\(hex){4}-\(hex){12}",
        "uri": uri,
        "uri-reference": uri,
        "iri": uri,
        "iri-reference": uri,
        "json-pointer": "(?:/(?:[A-Za-z0-9._-]|~[01])*)*",
        "relative-json-pointer": "(?:0|[1-9][0-9]{0,2})(?:#|(?:/(?:[A-Za-z0-9._-]|~[01])*)*)",
        "uri-template": "[A-Za-z0-9/._~-]*",
        "duration": "P[0-9]{1,3}D|PT[0-9]{1,3}[HMS]",
        "regex": "[A-Za-z0-9 _-]*",
    ]

    /// The whole-match pattern of `format`, or nil for an unknown (annotation-only) format.
    package static func pattern(for format: String) -> String? {
        patterns[format]
    }
}
