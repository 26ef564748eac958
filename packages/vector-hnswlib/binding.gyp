{
  "targets": [
    {
      "target_name": "zerda_hnsw_parallel",
      "sources": ["native/parallel-build.cc"],
      "include_dirs": [
        "<!(node -p \"require('path').join(require('path').dirname(require.resolve('hnswlib-node/package.json')), 'src', 'hnswlib')\")"
      ],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions"],
      "cflags_cc": ["-Wno-type-limits", "-Wno-unused-function"],
      "conditions": [
        ["OS=='win'", {
          "defines": ["_HAS_EXCEPTIONS=1"],
          "msvs_settings": { "VCCLCompilerTool": { "ExceptionHandling": 1 } }
        }],
        ["OS=='mac'", {
          "cflags+": ["-fvisibility=hidden"],
          "xcode_settings": {
            "GCC_ENABLE_CPP_EXCEPTIONS": "YES",
            "GCC_SYMBOLS_PRIVATE_EXTERN": "YES"
          }
        }]
      ]
    }
  ]
}
