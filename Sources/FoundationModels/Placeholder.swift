/// Placeholder so the module builds until the public API lands.
enum FoundationModelsPlaceholder {}
