@echo off
rem The relayer command: "relayer --help" lists the commands.
rem Install: unpack the distribution anywhere and put its bin directory on the PATH. Needs Java 17
rem or newer: JAVA_HOME if set, else java on the PATH. JAVA_OPTS, if set, goes to the JVM.
setlocal
set "RELAYER_HOME=%~dp0.."
if defined JAVA_HOME (
  set "JAVA=%JAVA_HOME%\bin\java.exe"
) else (
  set "JAVA=java"
)
"%JAVA%" %JAVA_OPTS% -Dfile.encoding=UTF-8 -Dsun.stdout.encoding=UTF-8 -cp "%RELAYER_HOME%\lib\*" dev.relayer.cli.RelayerCli %*
exit /b %ERRORLEVEL%
