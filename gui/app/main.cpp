// graphlens: the GraphLens GUI. `graphlens [capture.json]` opens a capture, or the built-in
// sample when none is given. `--screenshots DIR` writes a PNG of the window and of each view
// once every stage of the document is there, with a barrier selected and a short run made,
// then quits (for docs and CI), leaving the user's saved layout as it was. `--exit-after-open`
// quits once the document is complete, with a non-zero status when opening it failed.
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QTimer>

#include "app/allocator_tuning.h"
#include "app/main_window.h"
#include "app/view_export.h"
#include "graphlens_version.h"

int main(int argc, char** argv) {
    graphlens::gui::keep_freed_memory_for_reuse();
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("GraphLens"));
    QApplication::setApplicationName(QStringLiteral("graphlens"));
    QApplication::setApplicationVersion(
        QStringLiteral(GRAPHLENS_VERSION " (git revision " GRAPHLENS_GIT_REVISION ")"));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("GraphLens: a visual debugger for GPU compute graphs"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("capture"), QStringLiteral("capture file to open"));
    QCommandLineOption shots(
        QStringLiteral("screenshots"),
        QStringLiteral("write PNGs of the window and each view to <dir>, then quit"),
        QStringLiteral("dir"));
    parser.addOption(shots);
    QCommandLineOption exit_after_open(
        QStringLiteral("exit-after-open"),
        QStringLiteral("quit once every stage of the document is there (a check that the app "
                       "starts and reads its input; the exit status says whether it did)"));
    parser.addOption(exit_after_open);
    parser.process(app);

    graphlens::gui::MainWindow window;
    window.show();
    // Connected before the open starts: a file that fails at once fails before exec().
    if (parser.isSet(exit_after_open)) {
        QObject::connect(&window, &graphlens::gui::MainWindow::documentComplete, &app,
                         &QApplication::quit, Qt::QueuedConnection);
        QObject::connect(window.worker(), &graphlens::gui::CoreWorker::failed, &app,
                         [&app] { app.exit(1); });
    }
    const QStringList args = parser.positionalArguments();
    if (args.isEmpty())
        window.openSample();
    else
        window.openFile(args.first());

    if (parser.isSet(shots)) {
        const QString dir = parser.value(shots);
        QDir().mkpath(dir);
        QObject::connect(
            &window, &graphlens::gui::MainWindow::documentComplete, &window,
            [&] {
                window.prepareScreenshots([&] {
                    QTimer::singleShot(300, &window, [&] {
                        graphlens::gui::exportWidget(&window,
                                                     dir + QStringLiteral("/main-window.png"));
                        for (const auto& [name, w] : window.views()) {
                            window.showView(w);  // a tabbed dock shows (and builds) its view first
                            graphlens::gui::exportWidget(
                                w, dir + QLatin1Char('/') + name + QStringLiteral(".png"));
                        }
                        app.quit();
                    });
                });
            },
            Qt::SingleShotConnection);
    }
    return app.exec();
}
