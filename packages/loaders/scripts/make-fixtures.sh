#!/usr/bin/env bash
# Rebuilds the committed document fixtures from src/__fixtures__/library.fodt (a flat OpenDocument
# text: Arabic with diacritics, English, mixed Arabic/English, three pages), with real producers:
#   library.pdf            LibreOffice Writer's PDF export (DejaVu Sans embedded as a subset)
#   library.docx           LibreOffice Writer's Word export
#   library-encrypted.pdf  library.pdf encrypted by qpdf (AES-256, user password "zerda")
# Needs Debian's libreoffice-writer-nogui, fonts-dejavu-core and qpdf:
#   apt-get install -y --no-install-recommends libreoffice-writer-nogui fonts-dejavu-core qpdf
set -euo pipefail
cd "$(dirname "$0")/../src/__fixtures__"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
soffice -env:UserInstallation="file://$work/profile" --headless --convert-to pdf --outdir "$work" library.fodt >/dev/null
soffice -env:UserInstallation="file://$work/profile" --headless --convert-to docx --outdir "$work" library.fodt >/dev/null
cp "$work/library.pdf" "$work/library.docx" .
qpdf --encrypt zerda zerda-owner 256 -- library.pdf library-encrypted.pdf
ls -l library.pdf library.docx library-encrypted.pdf
