import ArgumentParser

/// `fm help NAME …`: the parser prints the main help and exits 0 for a NAME that is no subcommand, as if the topic
/// had been found.
enum HelpTopic {
    /// Refuses `fm help` with a topic that names no subcommand (of `fm`, or of the subcommand before it).
    static func check(_ arguments: [String]) throws {
        guard arguments.first == "help" else { return }
        var command: any ParsableCommand.Type = FM.self
        var path = "fm"
        // The topic is the names before the first option (`fm help tag -h`).
        for name in arguments.dropFirst().prefix(while: { !$0.hasPrefix("-") }) {
            let subcommands: [any ParsableCommand.Type] = command.configuration.subcommands
            var found: (any ParsableCommand.Type)?
            var known: [String] = []
            for subcommand in subcommands {
                let subcommandName: String = subcommand._commandName
                known.append(subcommandName)
                if subcommandName == name || subcommand.configuration.aliases.contains(name) { found = subcommand }
            }
            guard let found else {
                let listed = known.isEmpty ? "it has none" : "they are " + known.joined(separator: ", ")
                throw ValidationError("\(path) has no subcommand '\(name)'; \(listed).")
            }
            command = found
            path += " " + name
        }
    }
}
