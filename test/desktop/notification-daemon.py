# A minimal freedesktop notification server for tests, on the session bus it
# is started in (dbus-run-session): owns org.freedesktop.Notifications and
# prints one JSON line per Notify call it receives, after a first line with
# the bus address. Debian: python3-dbus, python3-gi.
import json
import os

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

IFACE = 'org.freedesktop.Notifications'


class Server(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, '/org/freedesktop/Notifications')
        self.last = 0

    @dbus.service.method(IFACE, in_signature='susssasa{sv}i', out_signature='u')
    def Notify(self, app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout):
        self.last += 1
        print(json.dumps({
            'method': 'Notify', 'app_name': str(app_name), 'summary': str(summary), 'body': str(body),
            'hints': {str(k): (int(v) if isinstance(v, (dbus.Byte, dbus.Int32, dbus.UInt32)) else str(v)) for k, v in hints.items()},
            'id': self.last,
        }), flush=True)
        return self.last

    @dbus.service.method(IFACE, out_signature='as')
    def GetCapabilities(self):
        return ['body']

    @dbus.service.method(IFACE, out_signature='ssss')
    def GetServerInformation(self):
        return ('lookout-test', 'lookout', '1', '1.2')

    @dbus.service.method(IFACE, in_signature='u')
    def CloseNotification(self, id):
        pass


dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
name = dbus.service.BusName(IFACE, bus)
server = Server(bus)
print(json.dumps({'address': os.environ['DBUS_SESSION_BUS_ADDRESS'], 'pid': os.getpid()}), flush=True)
GLib.MainLoop().run()
