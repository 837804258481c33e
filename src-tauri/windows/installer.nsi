; Rx Desk's per-user Windows installer, made offline by `cargo xtask windows
; installer` with makensis 3.08 (Debian 12's NSIS), and kept to what Tauri's own
; NSIS installer does with `installMode: currentUser` (tauri.windows.conf.json):
;
; - installs for the current user only, without administrator rights, into
;   %LOCALAPPDATA%\<product name>;
; - a Start menu entry, the `rxdesk://` link scheme under
;   HKCU\Software\Classes\rxdesk (as the deep-link plugin registers it), and an
;   uninstaller listed in Apps & features (HKCU\...\Uninstall\<product name>);
; - the WebView2 runtime, when missing, through Microsoft's bootstrapper run
;   silently (`webviewInstallMode: downloadBootstrapper, silent`): fetched at
;   install time over HTTPS, or embedded when the build passes
;   /DWEBVIEW2_BOOTSTRAPPER=<MicrosoftEdgeWebview2Setup.exe>;
; - the switches Tauri's updater passes: /S (silent), /P (passive: progress
;   only, no questions), /UPDATE, /R (start the app again when done) and
;   /ARGS <its arguments>.
;
; Defines the xtask passes (from src-tauri/tauri.conf.json and the build):
; PRODUCT_NAME, IDENTIFIER, VERSION, APP_EXE, WEBVIEW2_LOADER, ICON, OUTFILE.

; A 64-bit setup program (NSIS's amd64-unicode stub and plugins, which Debian's
; NSIS ships): Rx Desk is built for x64 only, and a 64-bit setup runs under
; Wine's 64-bit half, where `cargo xtask windows setup` tries it (NSIS's
; default 32-bit stub needs wine32). It writes the registry without WOW64
; redirection, as the app reads it. (32-bit Windows now refuses the file
; itself, before .onInit's "needs 64-bit Windows" could say so.)
Target amd64-unicode
ManifestDPIAware true
SetCompressor /SOLID lzma
RequestExecutionLevel user

!macro Required NAME
  !ifndef ${NAME}
    !error "${NAME} is not defined: run by `cargo xtask windows installer`, which passes it"
  !endif
!macroend
!insertmacro Required PRODUCT_NAME
!insertmacro Required IDENTIFIER
!insertmacro Required VERSION
!insertmacro Required APP_EXE
!insertmacro Required WEBVIEW2_LOADER
!insertmacro Required ICON
!insertmacro Required OUTFILE

!define MAIN_BINARY "rxdesk.exe"
!define PUBLISHER "Rx Desk"
!define SCHEME "rxdesk"
!define UNINSTALL_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\${PRODUCT_NAME}"
!define SCHEME_KEY "Software\Classes\${SCHEME}"
!define PRODUCT_KEY "Software\${PUBLISHER}\${IDENTIFIER}"
; The WebView2 runtime's product code (Microsoft's "Distribute your app" page):
; its `pv` value is the installed version, per machine or per user.
!define WEBVIEW2_GUID "{F3017226-FE2A-4295-8BDF-00C3A9A7E4C5}"
!define WEBVIEW2_URL "https://go.microsoft.com/fwlink/p/?LinkId=2124703"

Name "${PRODUCT_NAME}"
OutFile "${OUTFILE}"
InstallDir "$LOCALAPPDATA\${PRODUCT_NAME}"
InstallDirRegKey HKCU "${PRODUCT_KEY}" ""
BrandingText "${PRODUCT_NAME} ${VERSION}"

VIProductVersion "${VERSION}.0"
VIAddVersionKey "ProductName" "${PRODUCT_NAME}"
VIAddVersionKey "FileDescription" "${PRODUCT_NAME} installer"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "CompanyName" "${PUBLISHER}"
VIAddVersionKey "LegalCopyright" "Copyright © 2026 the Rx Desk authors"

!include "MUI2.nsh"
!include "FileFunc.nsh"
!include "LogicLib.nsh"
!include "x64.nsh"

!define MUI_ICON "${ICON}"
!define MUI_UNICON "${ICON}"
!define MUI_ABORTWARNING
!define MUI_FINISHPAGE_RUN "$INSTDIR\${MAIN_BINARY}"
!define MUI_FINISHPAGE_RUN_TEXT "Start ${PRODUCT_NAME}"

Var Passive ; 1 under /P: no questions, progress only
Var Restart ; 1 under /R: start the app again when done
Var AppArgs ; what follows /ARGS, passed to the app it starts again

!define MUI_PAGE_CUSTOMFUNCTION_PRE SkipWhenPassive
!insertmacro MUI_PAGE_WELCOME
!define MUI_PAGE_CUSTOMFUNCTION_PRE SkipWhenPassive
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!define MUI_PAGE_CUSTOMFUNCTION_PRE SkipWhenPassive
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

Function SkipWhenPassive
  ${If} $Passive == 1
    Abort
  ${EndIf}
FunctionEnd

Function .onInit
  ${IfNot} ${RunningX64}
    MessageBox MB_ICONSTOP|MB_OK "${PRODUCT_NAME} needs 64-bit Windows." /SD IDOK
    Abort
  ${EndIf}
  SetShellVarContext current
  ${GetParameters} $R0
  ClearErrors
  ${GetOptions} $R0 "/P" $R1
  ${IfNot} ${Errors}
    StrCpy $Passive 1
    SetAutoClose true
  ${EndIf}
  ClearErrors
  ${GetOptions} $R0 "/R" $R1
  ${IfNot} ${Errors}
    StrCpy $Restart 1
  ${EndIf}
  ClearErrors
  ${GetOptions} $R0 "/ARGS" $AppArgs
FunctionEnd

; The app must not be running while its files are replaced (the updater exits
; it before starting this; a user may still have it open).
!macro CloseApp
  nsExec::Exec '"$SYSDIR\taskkill.exe" /IM "${MAIN_BINARY}" /F'
  Pop $0
!macroend

Section "WebView2 runtime" WebView2
  ; Installed per machine (32- or 64-bit view) or per user?
  SetRegView 64
  ReadRegStr $0 HKLM "SOFTWARE\WOW6432Node\Microsoft\EdgeUpdate\Clients\${WEBVIEW2_GUID}" "pv"
  ${If} $0 == ""
  ${OrIf} $0 == "0.0.0.0"
    ReadRegStr $0 HKLM "SOFTWARE\Microsoft\EdgeUpdate\Clients\${WEBVIEW2_GUID}" "pv"
  ${EndIf}
  ${If} $0 == ""
  ${OrIf} $0 == "0.0.0.0"
    ReadRegStr $0 HKCU "Software\Microsoft\EdgeUpdate\Clients\${WEBVIEW2_GUID}" "pv"
  ${EndIf}
  SetRegView lastused
  ${If} $0 != ""
  ${AndIf} $0 != "0.0.0.0"
    DetailPrint "WebView2 runtime $0 is installed."
    Goto done
  ${EndIf}

  StrCpy $1 "$TEMP\MicrosoftEdgeWebview2Setup.exe"
  !ifdef WEBVIEW2_BOOTSTRAPPER
    SetOutPath "$TEMP"
    File "/oname=MicrosoftEdgeWebview2Setup.exe" "${WEBVIEW2_BOOTSTRAPPER}"
  !else
    DetailPrint "Downloading the WebView2 runtime's installer from Microsoft..."
    ; PowerShell is part of every Windows this app supports (10 and 11);
    ; NSIS 3.08's own download plugin speaks no HTTPS.
    nsExec::ExecToLog '"$SYSDIR\WindowsPowerShell\v1.0\powershell.exe" -NoProfile -NonInteractive -Command "$$ProgressPreference = $\'SilentlyContinue$\'; Invoke-WebRequest -UseBasicParsing -Uri $\'${WEBVIEW2_URL}$\' -OutFile $\'$1$\'"'
    Pop $0
    ${If} $0 != 0
    ${OrIfNot} ${FileExists} "$1"
      MessageBox MB_ICONSTOP|MB_OK "The WebView2 runtime ${PRODUCT_NAME} needs is missing and its installer could not be downloaded from Microsoft (go.microsoft.com). Connect to the internet, or ask IT for the installer with the WebView2 runtime inside, then run this setup again." /SD IDOK
      SetErrorLevel 1
      Quit
    ${EndIf}
  !endif
  DetailPrint "Installing the WebView2 runtime..."
  ExecWait '"$1" /silent /install' $0
  Delete "$1"
  ${If} $0 != 0
    MessageBox MB_ICONSTOP|MB_OK "The WebView2 runtime could not be installed (error $0). ${PRODUCT_NAME} cannot show its window without it." /SD IDOK
    SetErrorLevel 1
    Quit
  ${EndIf}
  done:
SectionEnd

Section "${PRODUCT_NAME}" Main
  SectionIn RO
  !insertmacro CloseApp
  SetOutPath "$INSTDIR"
  File "/oname=${MAIN_BINARY}" "${APP_EXE}"
  File "/oname=WebView2Loader.dll" "${WEBVIEW2_LOADER}"
  WriteUninstaller "$INSTDIR\uninstall.exe"

  ; The Start menu entry (kept as the user left it on an update).
  ${GetParameters} $R0
  ClearErrors
  ${GetOptions} $R0 "/UPDATE" $R1
  ${If} ${Errors}
  ${OrIfNot} ${FileExists} "$SMPROGRAMS\${PRODUCT_NAME}.lnk"
    CreateShortcut "$SMPROGRAMS\${PRODUCT_NAME}.lnk" "$INSTDIR\${MAIN_BINARY}"
  ${EndIf}
  ClearErrors

  ; rxdesk:// links open the app (the same keys the deep-link plugin writes).
  WriteRegStr HKCU "${SCHEME_KEY}" "" "URL:${SCHEME} protocol"
  WriteRegStr HKCU "${SCHEME_KEY}" "URL Protocol" ""
  WriteRegStr HKCU "${SCHEME_KEY}\DefaultIcon" "" "$\"$INSTDIR\${MAIN_BINARY}$\",0"
  WriteRegStr HKCU "${SCHEME_KEY}\shell\open\command" "" "$\"$INSTDIR\${MAIN_BINARY}$\" $\"%1$\""

  ; Where it is installed, for the next update.
  WriteRegStr HKCU "${PRODUCT_KEY}" "" "$INSTDIR"

  ; Apps & features.
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayName" "${PRODUCT_NAME}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayIcon" "$\"$INSTDIR\${MAIN_BINARY}$\""
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "Publisher" "${PUBLISHER}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "InstallLocation" "$\"$INSTDIR$\""
  WriteRegStr HKCU "${UNINSTALL_KEY}" "UninstallString" "$\"$INSTDIR\uninstall.exe$\""
  WriteRegStr HKCU "${UNINSTALL_KEY}" "QuietUninstallString" "$\"$INSTDIR\uninstall.exe$\" /S"
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoRepair" 1
  ${GetSize} "$INSTDIR" "/S=0K" $0 $1 $2
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "EstimatedSize" $0
SectionEnd

Function .onInstSuccess
  ${If} $Restart == 1
    Exec '"$INSTDIR\${MAIN_BINARY}" $AppArgs'
  ${EndIf}
FunctionEnd

Function un.onInit
  SetShellVarContext current
FunctionEnd

; Removes what the installer wrote. The user's data (sessions in the
; Credential Manager, the local database under %APPDATA%\${IDENTIFIER}) stays:
; an uninstall before a reinstall must not lose drafts.
Section "Uninstall"
  !insertmacro CloseApp
  Delete "$INSTDIR\${MAIN_BINARY}"
  Delete "$INSTDIR\WebView2Loader.dll"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"
  Delete "$SMPROGRAMS\${PRODUCT_NAME}.lnk"
  DeleteRegKey HKCU "${SCHEME_KEY}"
  DeleteRegKey HKCU "${PRODUCT_KEY}"
  DeleteRegKey /ifempty HKCU "Software\${PUBLISHER}"
  DeleteRegKey HKCU "${UNINSTALL_KEY}"
SectionEnd
