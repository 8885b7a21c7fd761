/// Placeholder so the module builds until the llama.cpp runtime lands.
enum FMLlamaPlaceholder {}
